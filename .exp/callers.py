import json,sys,collections
p=json.load(open(sys.argv[1])); target=sys.argv[2]
nodes={n['id']:n for n in p['nodes']}
parent={}
for n in p['nodes']:
    for c in n.get('children',[]): parent[c]=n['id']
dt=collections.Counter()
for s,d in zip(p['samples'],p['timeDeltas']): dt[s]+=d
def key(n):
    cf=n['callFrame']; u=cf['url'].split('/')[-1]
    return f"{cf['functionName'] or '(anon)'} {u}:{cf['lineNumber']}"
chains=collections.Counter()
for id_,t in dt.items():
    cur=id_; path=[]
    while cur is not None: path.append(key(nodes[cur])); cur=parent.get(cur)
    for i,k in enumerate(path):
        if k.startswith(target):
            chains[' < '.join(path[i:i+9])]+=t; break
for k,v in chains.most_common(12): print(f"{v/1000:7.0f} {k}")
