import json,sys,collections
p=json.load(open(sys.argv[1]))
nodes={n['id']:n for n in p['nodes']}
parent={}
for n in p['nodes']:
    for c in n.get('children',[]): parent[c]=n['id']
dt=collections.Counter()
for s,d in zip(p['samples'],p['timeDeltas']): dt[s]+=d
total=sum(dt.values())
self_=collections.Counter(); incl=collections.Counter()
def key(n):
    cf=n['callFrame']; u=cf['url'].split('/node_modules/')[-1] if 'node_modules' in cf['url'] else cf['url'].split('/')[-1]
    return f"{cf['functionName'] or '(anon)'} {u}:{cf['lineNumber']}"
def pkg(n):
    u=n['callFrame']['url']
    if '/node_modules/' in u: return u.split('/node_modules/')[-1].split('/')[0]
    if '/src/' in u: return 'src/'+u.split('/src/')[-1]
    if u.startswith('node:'): return u
    return u or n['callFrame']['functionName']
bypkg=collections.Counter()
for id_,t in dt.items():
    n=nodes[id_]; self_[key(n)]+=t; bypkg[pkg(n)]+=t
    seen=set(); cur=id_
    while cur is not None:
        k=key(nodes[cur])
        if k not in seen: incl[k]+=t; seen.add(k)
        cur=parent.get(cur)
print('total ms',total/1000)
print('--- self by package'); 
for k,v in bypkg.most_common(25): print(f"{v/1000:8.0f} {k}")
print('--- self top'); 
for k,v in self_.most_common(30): print(f"{v/1000:8.0f} {k}")
print('--- inclusive top')
for k,v in incl.most_common(60): print(f"{v/1000:8.0f} {k}")
