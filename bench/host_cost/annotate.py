#!/usr/bin/env python3
"""Per-instruction callgrind counts (a run with --dump-instr=yes) beside objdump's
disassembly, for the functions whose names contain a string.
usage: annotate.py callgrind.out binary function-substring [min_count]"""
import re, subprocess, sys
out, binary, fn = sys.argv[1], sys.argv[2], sys.argv[3]
minc = int(sys.argv[4]) if len(sys.argv) > 4 else 1
counts = {}
last = 0
in_calls = False
for line in open(out):
    line = line.rstrip('\n')
    if line.startswith('calls='):
        in_calls = True
        continue
    m = re.match(r'^(0x[0-9a-f]+|\+\d+|-\d+|\*)\s+(?:[+-]?\d+|\*)\s+(\d+)', line)
    if m:
        a = m.group(1)
        if a.startswith('0x'): addr = int(a, 16)
        elif a == '*': addr = last
        else: addr = last + int(a)
        last = addr
        if in_calls:
            in_calls = False  # the call line's inclusive cost: skip
            continue
        counts[addr] = counts.get(addr, 0) + int(m.group(2))
dis = subprocess.run(['objdump', '-d', '-C', '--no-show-raw-insn', binary], capture_output=True, text=True).stdout
cur = None
for line in dis.splitlines():
    h = re.match(r'^([0-9a-f]+) <(.*)>:$', line)
    if h:
        cur = h.group(2)
        if fn in cur: print(f'\n== {cur}')
        continue
    if cur and fn in cur:
        m = re.match(r'^\s+([0-9a-f]+):\s+(.*)$', line)
        if m:
            c = counts.get(int(m.group(1), 16), 0)
            if c >= minc: print(f'{c:>9} {m.group(1)} {m.group(2)}')
