#!/usr/bin/python3
"""Exports SWORD's KJV -> Vulg verse mapping to KJV-Vulg.json: every KJV verse whose
Vulgate (SWORD `Vulg`) verse differs, with that Vulgate verse (null when SWORD has none
in the same book). Psalms are left out: the study maps them with the LXX->MT psalm table
and OSHB's VerseMap (versification.ts). The mapping rules are CrossWire's
`mappings_vulg[]` (canon_vulg.h); this script only evaluates them with libsword 1.9.0
(Debian libsword1.9.0, python3-sword; system python):

    apt-get install python3-sword && /usr/bin/python3 export-mapping.py > KJV-Vulg.json

KJV -> Vulg is the direction taken: SWORD's rules give each KJV verse one Vulgate verse
(KJV Gen 49:31 and 49:32 are both Vulgate 49:31), and the inverse gives every Vulgate
verse its KJV verses.
"""
import json
import os

import Sword

here = os.path.dirname(os.path.abspath(__file__))
books = json.load(open(os.path.join(here, "KJV.json")))["books"]
out = {}
for book in books:
    osis = book["osis"]
    if osis == "Ps":
        continue
    for c, count in enumerate(book["verses"], start=1):
        for v in range(1, count + 1):
            ref = f"{osis}.{c}.{v}"
            k = Sword.VerseKey()
            k.setVersificationSystem("KJV")
            k.setText(ref)
            t = Sword.VerseKey()
            t.setVersificationSystem("Vulg")
            t.positionFrom(k)
            err = ord(t.popError())
            vulg = t.getOSISRef()
            if err or not vulg.startswith(osis + "."):
                vulg = None
            if vulg != ref:
                out[ref] = vulg
print(json.dumps({"from": "KJV", "to": "Vulg",
                  "source": "SWORD 1.9.0 (libsword1.9.0, python3-sword 1.9.0+dfsg-4+b4, Debian bookworm): VerseKey.positionFrom, i.e. canon_vulg.h mappings_vulg",
                  "verses": out}, indent=0))
