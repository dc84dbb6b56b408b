# A contest platform's side of judge-api, stdlib only (tests/judged/test_api.c runs it):
#   python3 platform.py URL SUBMIT_TOKEN WEBHOOK_SECRET PROBLEM LANGUAGE SOURCE_FILE...
# submits the files in one batch, follows its own verdicts on one event stream (?mine=1)
# and takes each verdict again as a webhook, whose signature it checks.
import hashlib, hmac, http.server, json, sys, threading, time, urllib.request
API, TOKEN, SECRET, PROBLEM, LANGUAGE, *FILES = sys.argv[1:]
hooks = {}
class Webhook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # X-Judged-Signature: sha256=HMAC(secret, "TIMESTAMP.BODY")
        body, ts = self.rfile.read(int(self.headers["Content-Length"])), self.headers["X-Judged-Timestamp"]
        mac = "sha256=" + hmac.new(SECRET.encode(), ts.encode() + b"." + body, hashlib.sha256).hexdigest()
        ok = hmac.compare_digest(mac, self.headers["X-Judged-Signature"]) and abs(time.time() - int(ts)) < 300
        self.send_response(204 if ok else 401)
        self.end_headers()
        if ok:  # deliveries are at least once: the id (or X-Judged-Event-Id) dedups
            hooks[json.loads(body)["id"]] = json.loads(body)["verdict"]
    def log_message(self, *args): pass
receiver = http.server.HTTPServer(("127.0.0.1", 0), Webhook)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
def call(path, body=None):
    return urllib.request.urlopen(urllib.request.Request(API + path, data=body and json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"}), timeout=120)
events = call("/v1/events?mine=1")  # opened first: every verdict after this request is sent
hook = f"http://127.0.0.1:{receiver.server_port}/judged"
batch = [{"problem": PROBLEM, "language": LANGUAGE, "source": open(f).read(), "idempotency_key": f,
          "callback_url": hook} for f in FILES]
answers = json.load(call("/v1/submissions/batch", {"submissions": batch}))["submissions"]
ids = [a["id"] for a in answers if a["status"] in (200, 202)]  # 400 names the field; 429/503: again after retry_after
verdicts = {}
for line in events:  # "data: {json}" lines; ": ..." comments are heartbeats
    if line.startswith(b"data: "):
        event = json.loads(line[6:])
        verdicts[event["id"]] = f'{event["verdict"]} {event["problem"]} {event["owner"]}'
        if set(ids) <= verdicts.keys(): break
while not set(ids) <= hooks.keys(): time.sleep(0.1)
for a, f in zip(answers, FILES):
    print(f, a["id"], verdicts[a["id"]], "webhook", hooks[a["id"]]) if "id" in a else print(f, a["status"], a["error"])
