#!/usr/bin/env python3
"""(Round 12: round 10's client, but the pack holds exactly the objects
named in $RAW_OBJECTS, space separated, without walking them: git's own
pack-objects --revs refuses to walk a commit whose tree or parent is no
tree or commit.)
A hand-written git push client (what any pusher can run): speaks
receive-pack's protocol (v0) to `git receive-pack SERVER` directly, so it
sends exactly the commands given, in the order given (duplicates, no-ops,
orders git's own client never sends).

usage: rp-client.py LOCAL_REPO SERVER_GITDIR [--atomic] [--stall S] CMD...
  CMD = "OLD NEW REF" (full hex ids, or 0 for zeros), one argument each.
Prints the server's report (ok/ng lines) on stdout; hook output on stderr.
"""
import os
import subprocess
import sys
import time

ZERO = "0" * 40


def pkt(data: bytes) -> bytes:
    return b"%04x" % (len(data) + 4) + data


def read_pkt(f):
    n = f.read(4)
    if len(n) < 4:
        return None
    n = int(n, 16)
    if n == 0:
        return b""
    return f.read(n - 4)


def main():
    args = sys.argv[1:]
    local, server = args[0], args[1]
    args = args[2:]
    atomic = False
    stall = 0.0
    cmds = []
    while args:
        a = args.pop(0)
        if a == "--atomic":
            atomic = True
        elif a == "--stall":
            stall = float(args.pop(0))
        else:
            old, new, ref = a.split()
            old = ZERO if old == "0" else old
            new = ZERO if new == "0" else new
            cmds.append((old, new, ref))
    p = subprocess.Popen(["git", "receive-pack", server], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    adv = []
    caps = b""
    while True:
        line = read_pkt(p.stdout)
        if line is None or line == b"":
            break
        if b"\0" in line:
            line, caps = line.split(b"\0", 1)
        adv.append(line.decode().strip().split(" ", 1))
    if stall:
        time.sleep(stall)
    want = ["report-status"]
    if atomic:
        want.append("atomic")
    out = b""
    for i, (old, new, ref) in enumerate(cmds):
        line = f"{old} {new} {ref}"
        if i == 0:
            line += "\0" + " ".join(want)
        out += pkt((line + "\n").encode())
    out += b"0000"
    p.stdin.write(out)
    news = {n for _, n, _ in cmds if n != ZERO}
    if news:
        objs = os.environ["RAW_OBJECTS"].split()
        pack = subprocess.run(["git", "-C", local, "pack-objects", "--stdout", "-q"],
                              input=("\n".join(objs) + "\n").encode(), stdout=subprocess.PIPE, check=True).stdout
        p.stdin.write(pack)
    p.stdin.close()
    while True:
        line = read_pkt(p.stdout)
        if line is None or line == b"":
            break
        sys.stdout.write(line.decode())
    p.wait()


if __name__ == "__main__":
    main()
