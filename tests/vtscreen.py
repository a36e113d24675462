#!/usr/bin/env python3
"""vtscreen.py — what a terminal shows after a captured session, for the
tests of mpilens run on a terminal (tests/cases/run_tty.sh).

    vtscreen.py TYPESCRIPT ROWS COLS

Replays the bytes of a script(1) typescript on a ROWS x COLS screen that
understands what mpilens and the MPI launchers write (printable text with
autowrap, CR, LF, BS, TAB; ESC 7 / ESC 8; CSI A B C D H f K J r m; other
escape sequences are skipped), and prints the scrollback (lines that
scrolled off the top of a scroll region starting at line 1, as xterm keeps
them) followed by the screen, trailing blanks removed.  It also prints, on
stderr, "regions: T;B ..." the scroll regions set, in order."""
import re
import sys


def main():
    data = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
    rows, cols = int(sys.argv[2]), int(sys.argv[3])
    # script(1) writes a "Script started" line first unless -q; with -q none
    scr = [[" "] * cols for _ in range(rows)]
    back = []
    r = c = 0
    top, bot = 0, rows - 1
    saved = (0, 0)
    wrap = False
    regions = []

    def lf():
        nonlocal r
        if r == bot:
            line = scr.pop(top)
            if top == 0:
                back.append("".join(line))
            scr.insert(bot, [" "] * cols)
        elif r < rows - 1:
            r += 1

    i, n = 0, len(data)
    csi = re.compile(r"\x1b\[([?>=!]?)([0-9;]*)([ -/]*)([@-~])")
    while i < n:
        ch = data[i]
        if ch == "\x1b":
            m = csi.match(data, i)
            if m:
                i = m.end()
                priv, ps, fin = m.group(1), m.group(2), m.group(4)
                if priv:
                    continue
                args = [int(a) if a else 0 for a in ps.split(";")] if ps else []
                a0 = args[0] if args else 0
                wrap = False
                if fin == "A":
                    r = max(top if r >= top else 0, r - max(a0, 1))
                elif fin == "B":
                    r = min(bot if r <= bot else rows - 1, r + max(a0, 1))
                elif fin == "C":
                    c = min(cols - 1, c + max(a0, 1))
                elif fin == "D":
                    c = max(0, c - max(a0, 1))
                elif fin in "Hf":
                    r = min(rows, max(a0, 1)) - 1
                    c = min(cols, max(args[1] if len(args) > 1 else 1, 1)) - 1
                elif fin == "K":
                    lo, hi = {0: (c, cols), 1: (0, c + 1), 2: (0, cols)}.get(a0, (0, 0))
                    for k in range(lo, hi):
                        scr[r][k] = " "
                elif fin == "J":
                    if a0 == 0:
                        spans = [(r, c, cols)] + [(k, 0, cols) for k in range(r + 1, rows)]
                    elif a0 == 1:
                        spans = [(k, 0, cols) for k in range(r)] + [(r, 0, c + 1)]
                    else:
                        spans = [(k, 0, cols) for k in range(rows)]
                    for (y, x0, x1) in spans:
                        for k in range(x0, x1):
                            scr[y][k] = " "
                elif fin == "r":
                    t = (args[0] if args and args[0] else 1) - 1
                    b = (args[1] if len(args) > 1 and args[1] else rows) - 1
                    if t < b < rows:
                        top, bot = t, b
                        regions.append("%d;%d" % (t + 1, b + 1))
                    r = c = 0
                continue
            nxt = data[i + 1] if i + 1 < n else ""
            if nxt == "7":
                saved = (r, c)
                i += 2
            elif nxt == "8":
                r, c = saved
                wrap = False
                i += 2
            elif nxt == "]":  # OSC ... BEL or ST
                j = i + 2
                while j < n and data[j] != "\x07" and data[j:j + 2] != "\x1b\\":
                    j += 1
                i = j + (1 if j < n and data[j] == "\x07" else 2)
            elif nxt in "()*+":
                i += 3
            else:
                i += 2
            continue
        i += 1
        if ch == "\r":
            c, wrap = 0, False
        elif ch == "\n":
            lf()
            wrap = False
        elif ch == "\b":
            c, wrap = max(0, c - 1), False
        elif ch == "\t":
            c = min(cols - 1, (c // 8 + 1) * 8)
        elif ch < " " or ch == "\x7f":
            pass
        else:
            if wrap:
                lf()
                c, wrap = 0, False
            scr[r][c] = ch
            if c == cols - 1:
                wrap = True
            else:
                c += 1
    lines = back + ["".join(l) for l in scr]
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    sys.stdout.write("".join(l + "\n" for l in lines))
    sys.stderr.write("regions: %s\n" % " ".join(regions))


main()
