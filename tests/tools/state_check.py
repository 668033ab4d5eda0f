#!/usr/bin/env python3
"""state_check.py: the state a run keeps, as src/README.md's "Threads, locks
and the state a run keeps" says (issue 32), checked from the code itself.

  python3 state_check.py SRC_DIR OBJ_DIR [README]

1. Threads: no pthread_create / g_thread_new / g_thread_try_new outside
   runplan.c (comments and strings aside).
2. One kind of lock: none of GLib's (GMutex, GRecMutex, GRWLock, GCond,
   GOnce and g_once_init_enter, G_LOCK, GPrivate) in src/.
3. No atexit but main.c's.
4. Mutable file-scope state: every object in a writable data section
   (.data, .bss, .tdata, .tbss and their sub-sections, not .data.rel.ro:
   const) of each OBJ_DIR/**/*.o, local statics in functions included (their
   names without the compiler's .N suffix), is named in the README's table
   "Mutable file-scope state left" in the row of its source file; and every
   name the table lists is still there. So a new static counter fails.

Prints one line per finding; exits 1 when there is any, else prints "ok".
"""
import os
import re
import subprocess
import sys

THREAD_STARTS = re.compile(r"\b(pthread_create|g_thread_new|g_thread_try_new)\s*\(")
GLIB_LOCKS = re.compile(
    r"\b(GMutex|GRecMutex|GRWLock|GCond|GOnce|GPrivate|G_LOCK\w*|G_PRIVATE_INIT|"
    r"g_once_init_enter\w*|g_once_init_leave\w*|g_once\b|g_mutex_\w+|g_rec_mutex_\w+|"
    r"g_rw_lock_\w+|g_cond_\w+|g_private_\w+)")
ATEXIT = re.compile(r"\batexit\s*\(")
WRITABLE = re.compile(r"^\.(data|bss|tdata|tbss)(\.|$)")
# what a sanitizer's instrumentation adds (-fsanitize=address: __odr_asan.NAME)
SANITIZER = re.compile(r"^__(odr_asan|asan|ubsan|tsan|sancov|msan)")


def code_only(text):
    """text with comments and string and character literals blanked."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def sources(src):
    for root, _dirs, files in os.walk(src):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                path = os.path.join(root, f)
                yield os.path.relpath(path, src), path


def table(readme):
    """{file: set of names} from the README's table of mutable state."""
    text = open(readme, encoding="utf-8").read()
    at = text.find("**Mutable file-scope state left")
    if at < 0:
        return None
    rows = {}
    for line in text[at:].splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("where", "") or set(cells[0]) <= set("-"):
            continue
        rows.setdefault(cells[0], set()).update(re.findall(r"`([A-Za-z_]\w*)`", cells[1]))
    return rows


def writable_objects(obj):
    """{source file: set of names} of the objects in writable sections."""
    found = {}
    for root, _dirs, files in os.walk(obj):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            path = os.path.join(root, f)
            src = os.path.relpath(path, obj)[:-2] + ".c"
            out = subprocess.run(["objdump", "-t", path], capture_output=True, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                # VALUE FLAGS(7 chars) SECTION\tSIZE NAME
                m = re.match(r"^[0-9a-f]+ (.{7}) (\S+)\t[0-9a-f]+\s+(\S+)$", line)
                if not m:
                    continue
                flags, section, name = m.groups()
                if "d" in flags or "f" in flags or "F" in flags:  # section, file, function
                    continue
                if not (WRITABLE.match(section) or section == "*COM*"):
                    continue
                if section.startswith(".data.rel.ro") or SANITIZER.match(name):
                    continue
                found.setdefault(src, set()).add(re.sub(r"\.\d+$", "", name))
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, obj = sys.argv[1], sys.argv[2]
    readme = sys.argv[3] if len(sys.argv) > 3 else os.path.join(src, "README.md")
    bad = []
    for rel, path in sources(src):
        code = code_only(open(path, encoding="utf-8", errors="replace").read())
        for no, line in enumerate(code.splitlines(), 1):
            if THREAD_STARTS.search(line) and rel != "runplan.c":
                bad.append(f"{rel}:{no}: starts a thread ({THREAD_STARTS.search(line).group(1)}): "
                           "only runplan.c does (runplan_spawn)")
            if GLIB_LOCKS.search(line):
                bad.append(f"{rel}:{no}: GLib's {GLIB_LOCKS.search(line).group(1)}: one kind of "
                           "lock, POSIX's (a race checker sees it)")
            if ATEXIT.search(line) and rel != "main.c":
                bad.append(f"{rel}:{no}: atexit: the run's state ends with the run")
    listed = table(readme)
    if listed is None:
        bad.append(f"{readme}: no table \"Mutable file-scope state left\"")
        listed = {}
    found = writable_objects(obj)
    if not found:
        bad.append(f"{obj}: no object files")
    for src_file in sorted(found):
        for name in sorted(found[src_file] - listed.get(src_file, set())):
            bad.append(f"{src_file}: mutable file-scope '{name}' is not in the README's table "
                       "(make it the run's, or list it and say why it is the process's)")
    for src_file in sorted(listed):
        for name in sorted(listed[src_file] - found.get(src_file, set())):
            bad.append(f"{src_file}: the README's table lists '{name}', which is not there")
    for b in bad:
        print(b)
    if not bad:
        print("ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
