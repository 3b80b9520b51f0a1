# SPDX-License-Identifier: GPL-3.0-or-later
"""A tiny TAP writer for the packaging tests."""
import sys


class Tap:
    def __init__(self):
        self.results = []

    def check(self, description, ok, *diagnostics):
        self.results.append((description, bool(ok), [str(d) for d in diagnostics if d]))
        return bool(ok)

    def note(self, text):
        self.results.append((None, True, [text]))

    def finish(self):
        print('TAP version 13')
        print(f'1..{sum(1 for d, _, _ in self.results if d is not None)}')
        n = 0
        failed = 0
        for description, ok, diagnostics in self.results:
            if description is None:
                for d in diagnostics:
                    print('# ' + d)
                continue
            n += 1
            print(f'{"ok" if ok else "not ok"} {n} - {description}')
            if not ok:
                failed += 1
                for d in diagnostics:
                    for line in d.splitlines():
                        print('#   ' + line)
        sys.stdout.flush()
        sys.exit(1 if failed else 0)
