#!/usr/bin/env python3
"""Writes solutions/ac.sed, A+B in GNU sed (sed has no arithmetic): both
numbers padded to 20 digits and put in ten's complement (a negative one's
digits complemented to 9, plus 1), added digit by digit from the right -
each digit pair and the carry counted in x's, the count read back as a
digit and a carry - modulo 10^20, and the sum read back with its sign
(a first digit of 5 or more is negative). |A|, |B| <= 10^18. Run it again
and the file comes out byte for byte the same."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def incr(tag):
    # PS: digits; adds 1 (mod 10^len)
    out = [f":{tag}9", r"s/9\(_*\)$/_\1/", f"t{tag}9"]
    for d in range(8, -1, -1):
        out.append(rf"s/{d}\(_*\)$/{d+1}\1/")
        out.append(f"t{tag}y")
    out += [f":{tag}y", "y/_/0/"]
    return out

def negate(tag):
    # PS: -digits (20 of them): to their ten's complement
    return ["/^-/{", "s/^-//", "y/0123456789/9876543210/"] + incr(tag) + ["}"]

L = []
L.append("# A+B in GNU sed: each number to its ten's complement on 20 digits,")
L.append("# added digit by digit (a digit pair and the carry counted in x's),")
L.append("# the sum read back with its sign. |A|, |B| <= 10^18.")
L += [r"s/^[[:space:]]*//", r"s/[[:space:]]*$//", r"s/[[:space:]]\+/;/", "s/$/;/"]
L += [":pa", r"s/^\(-\{0,1\}\)\([0-9]\{1,19\}\);/\10\2;/", "tpa"]
L += [":pb", r"s/;\(-\{0,1\}\)\([0-9]\{1,19\}\);$/;\10\2;/", "tpb"]
# A
L += ["h", "s/;.*//"] + negate("na") + ["G", r"s/\n[^;]*;/;/"]
# B
L += ["h", "s/^[^;]*;//", "s/;$//"] + negate("nb") + ["x", "G", r"s/;[^;]*;\n\(.*\)/;\1;/"]
# add: A;B;C;R
L += ["s/$/0;/", ":add", "/^;/bdone",
      r"s/^\([0-9]*\)\([0-9]\);\([0-9]*\)\([0-9]\);\([01]\);/\2,\4,\5:\1;\3;/"]
for d in range(9, -1, -1):
    L.append(rf"s/^{d},/{'x'*d},/")
for d in range(9, -1, -1):
    L.append(rf"s/^\(x*\),{d},/\1{'x'*d},/")
L += [r"s/^\(x*\),1:/\1x:/", r"s/^\(x*\),0:/\1:/"]
L += [r"s/^x\{10\}\(x*\):/\1,1:/", r"/^x*:/s/^\(x*\):/\1,0:/"]
for d in range(9, 0, -1):
    L.append(rf"s/^x\{{{d}\}},/{d},/")
L.append(r"s/^,/0,/")
L += [r"s/^\([0-9]\),\([01]\):\([0-9]*\);\([0-9]*\);/\3;\4;\2;\1/", "badd", ":done"]
L += [r"s/^;;[01];//"]
L += ["/^[5-9]/{", "y/0123456789/9876543210/"] + incr("ns") + ["s/^/-/", "}"]
L += [r"s/^\(-\{0,1\}\)0*\([0-9]\)/\1\2/"]
open(os.path.join(HERE, "solutions", "ac.sed"), "w").write("\n".join(L) + "\n")
