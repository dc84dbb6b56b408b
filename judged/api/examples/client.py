# judge-api client, stdlib only: python3 client.py URL TOKEN PROBLEM LANGUAGE SOURCE_FILE
import json, sys, time, urllib.error, urllib.request
API, TOKEN, PROBLEM, LANGUAGE, FILE = sys.argv[1:6]
def call(method, path, body=None, headers={}):
    req = urllib.request.Request(API + path, method=method, data=body and json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        if e.code not in (429, 503):  # 429: over the rate, 503: the pool is full
            raise RuntimeError(f"{e.code}: {json.load(e)}")
        time.sleep(int(e.headers.get("Retry-After", "1")))
        return call(method, path, body, headers)
sub = call("POST", "/v1/submissions", {"problem": PROBLEM, "language": LANGUAGE, "source": open(FILE).read()},
           {"Idempotency-Key": FILE})  # sent again after a timeout: the same id, judged once
res = call("GET", f"/v1/submissions/{sub['id']}?wait=30")
while res["state"] != "done":  # each wait is at most 30 s
    res = call("GET", f"/v1/submissions/{sub['id']}?wait=30")
print(res["id"], res["verdict"], res["score"], [t["verdict"] for t in res["tests"]])
