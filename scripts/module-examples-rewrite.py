#!/usr/bin/env python3
"""What scripts/module-examples.sh does to the public modules' examples, and
what it asks the emulator afterwards.

  prepare REPOS WORK REPO
                      REPO (a git repository under REPOS) at HEAD, under
                      WORK; every registry source of the modules at hand
                      (terraform-google-modules/{lb-http,lb,lb-internal,vm,
                      cloud-nat,network,cloud-storage,kms},
                      GoogleCloudPlatform/cloud-run) it reaches points, as a relative path, at
                      the newest tag its version constraint allows, made
                      under WORK from the repositories under REPOS, as
                      terraform init would fetch it from the registry
  prepare-dir REPOS WORK DIR
                      the configuration in DIR (one of this repository's
                      examples) copied under WORK, its sources pointed so
  alive EMU SECONDS   wait up to SECONDS for every backend to be HEALTHY,
                      then ask each forwarding rule for /; print a summary
"""
import functools
import json
import subprocess
import os
import re
import shutil
import ssl
import sys
import time
import urllib.parse
import urllib.request

REPOS = {
    "terraform-google-modules/lb-http/google": "terraform-google-lb-http",
    "terraform-google-modules/lb/google": "terraform-google-lb",
    "terraform-google-modules/lb-internal/google": "terraform-google-lb-internal",
    "GoogleCloudPlatform/lb-internal/google": "terraform-google-lb-internal",
    "GoogleCloudPlatform/lb/google": "terraform-google-lb",
    "terraform-google-modules/network/google": "terraform-google-network",
    "terraform-google-modules/vm/google": "terraform-google-vm",
    "terraform-google-modules/cloud-nat/google": "terraform-google-cloud-nat",
    "terraform-google-modules/cloud-storage/google": "terraform-google-cloud-storage",
    "terraform-google-modules/kms/google": "terraform-google-kms",
    "GoogleCloudPlatform/cloud-run/google": "terraform-google-cloud-run",
}
SOURCE = re.compile(r'^(\s*source\s*=\s*)"([^"]+)"', re.M)
PROJECTS = ["demo-project", "demo-service"]


def tf_files(root):
    for d, _, files in os.walk(root):
        if "/.terraform" in d or "/.git" in d:
            continue
        for f in files:
            if f.endswith(".tf"):
                yield os.path.join(d, f)


@functools.cache
def tags(repo):
    """The release tags of repo, oldest first (read once per repository)."""
    out = subprocess.run(["git", "-C", repo, "tag"], capture_output=True, text=True, check=True).stdout.split()
    versions = []
    for t in out:
        m = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", t)
        if m:
            versions.append((tuple(int(x) for x in m.groups()), t))
    return sorted(versions)


def pick(repo, constraint):
    """The newest tag of repo that constraint allows, as the registry
    would choose: "~> X.Y", "~> X.Y.Z", ">= X.Y", "X.Y.Z"; HEAD without one."""
    if not constraint:
        return "HEAD"
    allowed = tags(repo)
    for part in constraint.split(","):
        part = part.strip()
        m = re.fullmatch(r"(~>|>=|<=|>|<|=)?\s*v?(\d+(?:\.\d+)*)", part)
        if not m:
            return None
        op, nums = m.group(1) or "=", [int(x) for x in m.group(2).split(".")]
        want = tuple(nums + [0] * (3 - len(nums)))
        if op == "~>":
            upper = nums[:-1]
            upper[-1] += 1
            top = tuple(upper + [0] * (3 - len(upper)))
            allowed = [v for v in allowed if want <= v[0] < top]
        elif op == ">=":
            allowed = [v for v in allowed if v[0] >= want]
        elif op == ">":
            allowed = [v for v in allowed if v[0] > want]
        elif op == "<":
            allowed = [v for v in allowed if v[0] < want]
        elif op == "<=":
            allowed = [v for v in allowed if v[0] <= want]
        else:
            allowed = [v for v in allowed if v[0] == want]
    # None: no tag satisfies it; the block is left alone (init fails on it
    # only if the example uses it).
    return allowed[-1][1] if allowed else None


def materialize(repos, work, name, ref, done, home=None):
    """WORK/name@ref: the repository at ref, its own registry sources
    rewritten; made once."""
    dest = os.path.join(work, f"{name}@{ref}")
    if dest in done or os.path.isdir(dest):
        return dest
    done.add(dest)
    os.makedirs(dest, exist_ok=True)
    archive = subprocess.run(["git", "-C", os.path.join(repos, name), "archive", ref], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    # A repository's own examples name it from the registry (pinned to a
    # release that may predate them): they are written against its HEAD,
    # which they reach as it is here.
    rewrite_sources(repos, work, dest, done, home=name if ref == "HEAD" else None)
    return dest


def module_body(chunk):
    """Splits chunk into the module block it starts with (through its
    closing brace; "" when it starts with none) and what follows."""
    if not chunk.startswith("module"):
        return "", chunk
    depth = 0
    for i, c in enumerate(chunk):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return chunk[:i + 1], chunk[i + 1:]
    return chunk, ""


def rewrite_sources(repos, work, root, done, home=None):
    for path in tf_files(root):
        text = open(path).read()
        out, changed = [], False
        for chunk in re.split(r'(?m)^(?=module\s+"[^"]+"\s*\{)', text):
            block, rest = module_body(chunk)
            out.append(rest)
            m = SOURCE.search(block)
            if block.startswith("module") and m:
                base, _, sub = m.group(2).partition("//")
                if base in REPOS:
                    v = re.search(r'(?m)^[ \t]*version[ \t]*=[ \t]*"([^"]*)"[ \t]*\n', block)
                    ref = "HEAD" if REPOS[base] == home else pick(os.path.join(repos, REPOS[base]), v.group(1) if v else "")
                    if ref is None:
                        out.insert(-1, block)
                        continue
                    if v:  # version is for registry sources only
                        block = block[:v.start()] + block[v.end():]
                    local = os.path.join(materialize(repos, work, REPOS[base], ref, done), sub)
                    rel = os.path.relpath(local, os.path.dirname(path))
                    if not rel.startswith("."):
                        rel = "./" + rel
                    m = SOURCE.search(block)
                    block = block[:m.start(2)] + rel + block[m.end(2):]
                    changed = True
            out.insert(-1, block)
        if changed:
            open(path, "w").write("".join(out))


def call(url, method="GET", body=None):
    req = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def aggregated(emu, collection):
    out = []
    for project in PROJECTS:
        try:
            items = call(f"{emu}/compute/v1/projects/{project}/aggregated/{collection}").get("items", {})
        except Exception:
            continue
        for scoped in items.values():
            out.extend(scoped.get(collection, []))
    return out


def at(emu, link):
    """The emulator's URL of a self link, whatever root it has
    (--self-link-root gives Google's)."""
    return f"{emu}/compute/v1/" + link[link.index("projects/"):]


def health(emu):
    """Every backend's state: instances of services' groups and pools;
    how many backends are serverless and Private Service Connect NEGs,
    which no health check probes (the cloud allows none on their
    services); how many backends there are."""
    states, backends, unprobed = [], 0, {"SERVERLESS": 0, "PRIVATE_SERVICE_CONNECT": 0}
    for bs in aggregated(emu, "backendServices"):
        for b in bs.get("backends", []):
            backends += 1
            if "/networkEndpointGroups/" in b["group"]:
                try:
                    kind = call(at(emu, b["group"])).get("networkEndpointType")
                except Exception:
                    kind = None
                if kind in ("SERVERLESS", "PRIVATE_SERVICE_CONNECT"):
                    unprobed[kind] += 1
                    continue
            try:
                gh = call(at(emu, bs["selfLink"]) + "/getHealth", "POST", {"group": b["group"]})
            except Exception as e:
                states.append(f"getHealth failed: {e}")
                continue
            states += [s.get("healthState", "UNKNOWN") for s in gh.get("healthStatus", [])]
    for tp in aggregated(emu, "targetPools"):
        for inst in tp.get("instances", []):
            backends += 1
            try:
                gh = call(at(emu, tp["selfLink"]) + "/getHealth", "POST", {"instance": inst})
            except Exception as e:
                states.append(f"getHealth failed: {e}")
                continue
            states += [s.get("healthState", "UNKNOWN") for s in gh.get("healthStatus", [])]
    return states, unprobed["SERVERLESS"], unprobed["PRIVATE_SERVICE_CONNECT"], backends


def objects(emu):
    """A path to ask for an object through each backend bucket (the first
    object of its bucket in the emulator's Cloud Storage), and how many
    backend buckets there are (which nothing probes)."""
    paths, count = [], 0
    for project in PROJECTS:
        try:
            buckets = call(f"{emu}/compute/v1/projects/{project}/global/backendBuckets").get("items", [])
        except Exception:
            continue
        for bb in buckets:
            count += 1
            try:
                items = call(f"{emu}/storage/v1/b/{bb['bucketName']}/o").get("items", [])
            except Exception:
                continue
            if items:
                paths.append("/" + urllib.parse.quote(items[0]["name"]))
    return paths, count


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


def ask(rule, paths):
    """What a forwarding rule answers to GET /, in one short line; when
    that is 404 and backend buckets hold objects, what it answers to a
    request for each bucket's first object."""
    ip = rule.get("IPAddress", "")
    ports = rule.get("ports") or [rule.get("portRange", "80").split("-")[0]]
    if rule.get("IPProtocol", "TCP") not in ("TCP", "HTTP", "HTTPS") or not ip.startswith("127."):
        return f"{rule['name']}=not asked ({rule.get('IPProtocol')} {ip})"
    port = ports[0] if rule.get("ports") else rule.get("portRange", "80").split("-")[0]
    scheme = "https" if "targetHttpsProxies" in rule.get("target", "") or "targetSslProxies" in rule.get("target", "") else "http"
    # A redirect (a rule that redirects HTTP to HTTPS) is an answer: it is
    # reported, not followed.
    opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=ssl._create_unverified_context()))

    def get(path):
        try:
            with opener.open(f"{scheme}://{ip}:{port}{path}", timeout=10) as r:
                first = r.read(200).decode(errors="replace").splitlines()[:1]
                return f"{r.status} {first[0] if first else ''}".strip()
        except urllib.error.HTTPError as e:
            return f"{e.code}"
        except Exception as e:
            return f"error {type(e).__name__}: {e}"[:160]

    answer = get("/")
    if answer == "404":
        for path in paths:
            got = get(path)
            if got.startswith("200"):
                return f"{rule['name']}=404, {path}={got}"
    return f"{rule['name']}={answer}"


def alive(emu, seconds):
    deadline = time.time() + seconds
    states, serverless, psc, backends = health(emu)
    while time.time() < deadline and (not states or any(s != "HEALTHY" for s in states)):
        if not states and (serverless or psc or not backends or objects(emu)[1]):
            break  # nothing to probe
        time.sleep(2)
        states, serverless, psc, backends = health(emu)
    healthy = sum(1 for s in states if s == "HEALTHY")
    paths, buckets = objects(emu)
    answers = [ask(r, paths) for r in aggregated(emu, "forwardingRules")]
    print(f"healthy {healthy}/{len(states)}" + (f" serverless {serverless}" if serverless else "") +
          (f" buckets {buckets}" if buckets else "") + (f" psc {psc}" if psc else "") +
          (" no backends" if not backends and not buckets else "") +
          " lb: " + ("; ".join(answers) if answers else "none"))


def main():
    cmd = sys.argv[1]
    if cmd == "prepare-dir":
        # prepare-dir REPOS WORK DIR: a copy of the configuration in DIR
        # under WORK, its registry sources pointed as prepare does; prints
        # the copy's path.
        dest = os.path.join(sys.argv[3], os.path.basename(os.path.abspath(sys.argv[4])))
        shutil.copytree(sys.argv[4], dest, ignore=shutil.ignore_patterns(".terraform*", "terraform.tfstate*"))
        rewrite_sources(sys.argv[2], sys.argv[3], dest, set())
        print(dest)
    elif cmd == "prepare":
        # prepare REPOS WORK REPO: REPO at HEAD under WORK, with every
        # registry source it reaches materialized beside it; prints its path.
        print(materialize(sys.argv[2], sys.argv[3], sys.argv[4], "HEAD", set()))
    elif cmd == "alive":
        alive(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
