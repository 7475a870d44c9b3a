#!/usr/bin/env python3
"""An Agency Integration API v1 double that is not the simulator: another process, another language, another
HTTP stack, written from a strict reading of docs (the spec) alone, so the benchmark sees what a user against
another service sees (HTTP/1.1 keep-alive without a Keep-Alive header, reports answered inline, no extra keys).

    python3 bench/api-double.py PROJECTS [TOKEN]

Prints one line, {"url": ...}, once it listens on 127.0.0.1 (a free port); on a line "finish" on its stdin it
prints {"requests": N, "cpuMs": M} and exits. Only the standard library: nothing to install.
"""
import json
import os
import random
import sys
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PROJECTS = int(sys.argv[1]) if len(sys.argv) > 1 else 100
TOKEN = sys.argv[2] if len(sys.argv) > 2 else "demo-token-0123456789abcdef"
DAILY_LIMIT = 5000
STATUSES = ("active", "paused", "archived")
AIS = ("chatgpt", "perplexity", "gemini", "claude", "copilot")
PRIORITIES = ("critical", "high", "medium", "low")
CATEGORIES = ("seo", "content", "technical", "ai_visibility")
SECTIONS = ("scores", "recommendations", "history", "metrics", "trust")
WORDS = ("Northwind", "Harbor", "Redwood", "Summit", "Atlas", "Lumen", "Cedar", "Orbit", "Meridian", "Pioneer")
TRADES = ("Realty", "Dental", "Software", "Bakery", "Physiotherapy", "Legal", "Travel", "Garden", "Studio", "Motors")
ADVICE = (
    ("Fix pages blocked by robots.txt", "Key pages are disallowed for crawlers; assistants cannot cite them."),
    ("Add FAQ structured data", "The service pages answer common questions without FAQPage markup."),
    ("Improve Largest Contentful Paint on mobile", "LCP is above 4 s on mobile; compress the hero image."),
    ("Get cited on industry comparison pages", "Assistants rely on third-party comparisons where the brand is absent."),
    ("Consolidate duplicate title tags", "Several pages share the same title tag."),
    ("Respond to recent customer reviews", "Reviews from the last 90 days have no owner response."),
    ("Earn links from local press", "Referring domains are few and mostly directories."),
    ("Enable HTTP/2 and compression", "The server answers over HTTP/1.1 without compression."),
)

lock = threading.Lock()
state = {"requests": 0, "used": {}, "next_report": 50001}
reports = {}


def project(pid):
    rng = random.Random(pid)
    name = f"{WORDS[pid % len(WORDS)]} {TRADES[(pid // len(WORDS)) % len(TRADES)]} {pid}"
    return {
        "id": pid,
        "name": name,
        "domain": name.lower().replace(" ", "-") + ".example",
        "status": STATUSES[0] if pid % 7 else STATUSES[1 + rng.randrange(2)],
        "language": "fr" if pid % 5 == 0 else "en",
    }


def scores_of(pid, month):
    rng = random.Random(pid * 100 + month)
    geo = rng.randrange(30, 90)
    return {
        "geo_score": geo,
        "seo_score": rng.randrange(30, 95),
        "ai_visibility": {ai: max(0, min(100, geo + rng.randrange(-12, 12))) for ai in AIS},
    }


def report_sections(pid, include):
    rng = random.Random(pid)
    sections = {}
    for section in include:
        if section == "scores":
            sections["scores"] = scores_of(pid, 12)
        elif section == "recommendations":
            sections["recommendations"] = [
                {
                    "id": pid * 100 + i,
                    "title": title,
                    "description": description,
                    "priority": rng.choice(PRIORITIES),
                    "category": rng.choice(CATEGORIES),
                }
                for i, (title, description) in enumerate(rng.sample(ADVICE, rng.randrange(3, len(ADVICE))))
            ]
        elif section == "history":
            sections["history"] = [
                {"date": f"{2025 + (m + 10) // 12}-{(m + 10) % 12 + 1:02d}-01", **{k: v for k, v in scores_of(pid, m).items() if k != "ai_visibility"}}
                for m in range(1, 13)
            ]
        elif section == "metrics":
            sections["metrics"] = {
                "ai_mentions": rng.randrange(10, 300),
                "citations": rng.randrange(5, 90),
                "share_of_voice": {"value": round(rng.uniform(2, 40), 1), "unit": "%"},
                "indexed_pages": rng.randrange(20, 900),
                "backlinks": rng.randrange(10, 3000),
            }
        elif section == "trust":
            sections["trust"] = {
                "trust_score": rng.randrange(30, 95),
                "review_platforms": [{"name": "Trustpilot", "rating": round(rng.uniform(2.5, 5), 1), "reviews_count": rng.randrange(5, 900)}],
            }
    return sections


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the spec leaves it: no Keep-Alive header announced

    def log_message(self, *args):
        pass

    def answer(self, status, data, used):
        body = {"success": status == 200, "data": data if status == 200 else None}
        if status != 200:
            body["error"] = data
        body["meta"] = {
            "timestamp": datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds"),
            "api_version": "v1",
            "usage": {"daily_used": used, "daily_limit": DAILY_LIMIT, "daily_remaining": max(0, DAILY_LIMIT - used)},
        }
        raw = json.dumps(body, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def handle_any(self, method):
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        with lock:
            state["requests"] += 1
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self.answer(401, {"message": "missing or invalid token"}, 0)
        with lock:
            used = state["used"][TOKEN] = state["used"].get(TOKEN, 0) + 1
        if used > DAILY_LIMIT:
            return self.answer(429, {"message": "daily quota used up"}, DAILY_LIMIT)
        endpoint = url.path.removeprefix("/api/v1/")
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            return self.answer(400, {"message": "the body is not JSON"}, used)
        found = self.route(method, endpoint, query, body)
        if found is None:
            return self.answer(404, {"message": "not found"}, used)
        self.answer(found[0], found[1], used)

    def route(self, method, endpoint, query, body):
        if endpoint == "projects.php" and method == "GET":
            if "id" in query:
                pid = int(query["id"])
                return (200, project(pid)) if 1 <= pid <= PROJECTS else None
            everyone = [project(pid) for pid in range(1, PROJECTS + 1)]
            if "status" in query:
                everyone = [p for p in everyone if p["status"] == query["status"]]
            limit = min(100, int(query.get("limit", 100)))
            offset = int(query.get("offset", 0))
            return 200, {"projects": everyone[offset : offset + limit], "total": len(everyone)}
        if endpoint == "competitors.php" and method == "GET":
            rows = [
                {"project_id": pid, "scores": {k: v for k, v in scores_of(pid, 12).items() if k != "ai_visibility"}, "percentile": pid * 37 % 100}
                for pid in range(1, PROJECTS + 1)
            ]
            for row in rows:
                row["vs_benchmark"] = {k: round(v - 50, 1) for k, v in row["scores"].items()}
            return 200, {"benchmark": {"geo_score": {"average": 50}, "seo_score": {"average": 50}}, "projects": rows}
        if endpoint == "stats.php" and method == "GET":
            return 200, {"projects_count": PROJECTS, "scans_count": PROJECTS * 12, "average_score": 58.2, "top_projects": [], "evolution": []}
        if endpoint == "reports.php" and method == "POST":
            pid = body.get("project_id")
            if not isinstance(pid, int) or not 1 <= pid <= PROJECTS:
                return None
            include = [s for s in body.get("include") or ["scores"] if s in SECTIONS]
            with lock:
                rid = state["next_report"]
                state["next_report"] += 1
            report = {"id": rid, "project_id": pid, "format": "json", "include": include, "sections": report_sections(pid, include)}
            reports[rid] = report
            return 200, {"report": report}
        if endpoint == "reports.php" and method == "GET" and "id" in query:
            report = reports.get(int(query["id"]))
            return None if report is None else (200, {"report": report})
        return None

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print(json.dumps({"url": f"http://127.0.0.1:{server.server_address[1]}"}), flush=True)
for line in sys.stdin:
    if line.strip() == "finish":
        break
times = os.times()
print(json.dumps({"requests": state["requests"], "cpuMs": round((times.user + times.system) * 1000)}), flush=True)
server.shutdown()
