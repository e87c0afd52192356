#!/usr/bin/env python3
"""The triggers of the `*_triggers` scenarios: 200 active triggers of three conditions each, of which five
match every create and every priority change the bench makes (an agent's write to a live ticket).

    bench/triggers.py install BASE ADMIN_TOKEN IDS_FILE   # adds them, writes their ids to IDS_FILE
    bench/triggers.py remove BASE ADMIN_TOKEN IDS_FILE    # deletes them again

The 195 others fail on a condition a desk would write: an event the bench does not make, a word its titles
lack, a priority or a custom field value (`site`, one of the seed's fifty fields) it does not have. The five
that match set a due date, put tags on and take one off, as routing rules do.
"""
import json
import os
import sys
import urllib.error
import urllib.request

TRIGGERS = 200
# How many match the bench's writes (TRIGGERS_MATCHING=0: the cost of matching alone).
MATCHING = int(os.environ.get("TRIGGERS_MATCHING", "5"))


def request(method, url, token, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req) as answer:
            text = answer.read()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as refused:
        sys.exit(f"{method} {url} {json.dumps(body)}: {refused.code} {refused.read().decode()}")


def cond(field, operator, value):
    return {"field": field, "operator": operator, "value": value}


def matching(k):
    actions = [
        [{"add_tags": ["triaged"]}],
        [{"set": "due_date", "value": 5}],
        [{"add_tags": ["routed"]}],
        [{"remove_tags": ["waiting"]}],
        [{"set": "due_date", "value": 7}],
    ][k]
    return {
        "name": f"Bench match {k}",
        "conditions": {
            "all": [
                cond("event", "one_of", ["created", "updated"]),
                cond("actor.role", "one_of", ["agent", "admin"]),
                cond("ticket.status", "one_of", ["new", "open", "in_progress"]),
            ],
            "any": [],
        },
        "actions": actions,
    }


def other(k):
    shapes = [
        # A word the bench's titles lack.
        [cond("event", "is", "created"), cond("ticket.title", "contains", f"vpn-{k}"),
         cond("ticket.priority", "is", "low")],
        # An event the bench does not make.
        [cond("event", "is", "comment_added"), cond("comment.internal", "is", False),
         cond("ticket.status", "is", "on_hold")],
        # A custom field's value, on tickets in a status the bench's are not in.
        [cond("event", "one_of", ["created", "updated"]), cond("ticket.fields.site", "is", "Oslo"),
         cond("ticket.status", "is", "on_hold")],
        # A status the bench's tickets are not in.
        [cond("event", "is", "updated"), cond("ticket.status", "is", "resolved"),
         cond("ticket.title", "starts_with", f"Invoice {k}")],
    ]
    return {
        "name": f"Bench other {k}",
        "conditions": {"all": shapes[k % len(shapes)], "any": []},
        "actions": [{"add_tags": [f"never-{k}"]}],
    }


def install(base, token, path):
    ids = []
    # The matching ones spread among the others, as a desk's rules are.
    step = TRIGGERS // MATCHING if MATCHING else TRIGGERS + 1
    made = 0
    for i in range(TRIGGERS):
        body = matching(i // step) if i % step == step - 1 else other(i)
        ids.append(request("POST", f"{base}/api/automation/triggers/", token, body)["id"])
        made += 1
    with open(path, "w") as out:
        out.write("\n".join(str(i) for i in ids))
    print(f"{made} triggers installed", file=sys.stderr)


def remove(base, token, path):
    with open(path) as ids:
        for line in ids:
            if line.strip():
                request("DELETE", f"{base}/api/automation/triggers/{line.strip()}/", token)


if __name__ == "__main__":
    what, base, token, path = sys.argv[1:5]
    {"install": install, "remove": remove}[what](base, token, path)
