#!/usr/bin/python3
"""The README's commands, run as shown, and the documentation's links, checked.

    Tests/Docs/readme_test.py [--only-links] [--keep]

1. Links: every relative link in README.md, CONTRIBUTING.md and docs/*.md leads to a file of this repository, and
   every `#anchor` to a heading of the file it names (GitHub's anchor rules). The README links every article in
   docs/ (the numbered files).
2. Shell blocks: every ```sh block of README.md runs, in order, with bash -e, as a reader would run it: in a fresh
   project folder (a new temporary directory, with `~` a fresh home whose Downloads/shop.har is Tests/Docs/shop.har,
   a Proxyman export), or at the repository's root where the block says `<!-- readme-test: cwd=repo -->` (a
   clone's commands), or in a folder of the project (`cwd=ShopUITests/mockd`, continuing a `cd` of the block before).
   `mockd` on PATH is the release build (.build/release/mockd); what a block exports, later blocks see, as in
   the reader's terminal. A command that serves (`mockd --config …`,
   `mockd record …`, `scripts/run`) runs until it prints `listening on` and then in the background until the next
   serve or the end, as it would in another terminal; it must start, or the block fails.
   Commands that cannot run on this machine are pinned to what covers them instead, and each is checked:
   `brew` (macOS; the formula it names has its template in scripts/release/), `docker` (no container engine here; the Dockerfile
   exists and scripts/container-smoke checks the image's runtime), `xcodebuild` and `xcrun` (macOS; the example
   package Examples/ShopUITests runs the kit against the real daemon), `scripts/test` (this runs inside it).
   Each pinned line is still parsed (bash -n).
3. Options: every `mockd …` command the documentation shows (README.md, CONTRIBUTING.md, docs/*.md; code blocks
   and inline code) names a subcommand that exists and options that subcommand's --help lists, so a renamed or
   removed option cannot linger in an article.
4. Swift blocks: every ```swift block of README.md is type-checked against the built MockdClient, MockdTestKit and
   MockdAppRedirect modules, with small stand-ins for what only exists on Apple platforms (XCUIApplication,
   SwiftUI's App).

Run as root, the commands run in a private network namespace (unshare -n), so the README's port 8080 is free and
nothing leaves the machine. Prints `ok NAME`, `pinned NAME: why` or `FAIL NAME: why`; exit 1 when any failed.
"""

import argparse
import fcntl
import glob
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HERE = os.path.join(ROOT, "Tests", "Docs")
PINNED = {
    "brew": "macOS only (Homebrew); the formula it installs is checked to have its template in scripts/release/",
    "docker": "no container engine here; scripts/container-smoke checks the image's runtime and the Dockerfile exists",
    "xcodebuild": "macOS only; Examples/ShopUITests (step example) runs the kit's tests against the real daemon",
    "xcrun": "macOS only (the Simulator's keychain)",
}
SERVE_SECONDS = {"mockd": 60, "scripts/run": 1800}

failures = []


def ok(name):
    print("ok %s" % name, flush=True)


def fail(name, why):
    failures.append(name)
    print("FAIL %s: %s" % (name, why), flush=True)


# MARK: - markdown


def fenced_blocks(text):
    """(language, code, directive, line number) of each fenced block; directive: the `readme-test:` comment
    right before it (blank lines allowed), else ''."""
    blocks = []
    lines = text.split("\n")
    i = 0
    last_comment = ("", -10)
    while i < len(lines):
        line = lines[i]
        match = re.match(r"<!--\s*readme-test:\s*(.*?)\s*-->", line.strip())
        if match:
            last_comment = (match.group(1), i)
        fence = re.match(r"^(```+)\s*([A-Za-z0-9_+-]*)\s*$", line)
        if fence:
            start = i
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith(fence.group(1)):
                body.append(lines[i])
                i += 1
            between = lines[last_comment[1] + 1 : start] if last_comment[1] >= 0 else ["x"]
            directive = last_comment[0] if all(not b.strip() for b in between) else ""
            blocks.append((fence.group(2), "\n".join(body) + "\n", directive, start + 1))
        i += 1
    return blocks


def github_anchor(heading, seen):
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    anchor = text.replace(" ", "-")
    count = seen.get(anchor, 0)
    seen[anchor] = count + 1
    return anchor if count == 0 else "%s-%d" % (anchor, count)


def anchors_of(path):
    seen = {}
    found = set()
    inside = False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("```"):
            inside = not inside
        if not inside:
            match = re.match(r"^#{1,6} (.*)$", line)
            if match:
                found.add(github_anchor(match.group(1), seen))
    return found


def strip_code(text):
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def documentation():
    """The documentation's markdown files: README.md, CONTRIBUTING.md and docs/*.md."""
    documents = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "CONTRIBUTING.md")]
    return documents + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def check_links():
    for document in documentation():
        name = "links in " + os.path.relpath(document, ROOT)
        problems = []
        text = strip_code(open(document, encoding="utf-8").read())
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(document), path)) if path else document
            if not resolved.startswith(ROOT) or not os.path.exists(resolved):
                problems.append("%s: no such file" % target)
                continue
            tracked = subprocess.run(
                ["git", "-C", ROOT, "ls-files", "--error-unmatch", os.path.relpath(resolved, ROOT)],
                capture_output=True,
            )
            if tracked.returncode != 0 and not os.path.isdir(resolved):
                problems.append("%s: not tracked by git (a clone would not have it)" % target)
            if anchor and resolved.endswith(".md") and anchor not in anchors_of(resolved):
                problems.append("%s: no heading with that anchor in %s" % (target, os.path.relpath(resolved, ROOT)))
        if problems:
            fail(name, "; ".join(problems))
        else:
            ok(name)
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    articles = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "docs", "[0-9][0-9]-*.md")))
    missing = [a for a in articles if "docs/" + a not in readme]
    if not articles:
        fail("README links every article", "no numbered articles in docs/")
    elif missing:
        fail("README links every article", "not linked: " + ", ".join(missing))
    else:
        ok("README links every article (%d)" % len(articles))
    size = len(readme.encode("utf-8"))
    if size > 15 * 1024:
        fail("README size", "%d bytes, over 15 KiB: move detail into an article" % size)
    else:
        ok("README size (%d bytes)" % size)


# MARK: - options named in the documentation


def help_flags(mockd, command):
    arguments = [mockd] + ([command] if command else []) + ["--help"]
    result = subprocess.run(arguments, capture_output=True, text=True)
    return set(re.findall(r"--[a-z][a-z0-9-]*", result.stdout + result.stderr)), result.stdout


def documented_mockd_commands(text):
    """Every `mockd …` command line in code blocks and inline code spans of a markdown text."""
    commands = []
    for language, code, _, _ in fenced_blocks(text):
        if language in ("sh", "bash", "shell", "console", "yaml", "dockerfile", ""):
            for line in logical_lines(code):
                for part in re.split(r"&&|\|\||;|\$\(|`", line):
                    commands.append(part)
    for span in re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S)):
        commands.append(span)
    found = []
    for command in commands:
        command = command.split("#")[0].strip()
        command = re.sub(r"^(\s*-\s*run:\s*|\s*-\s*)", "", command)
        command = re.sub(r"^([A-Z_]+=\S+\s+)+", "", command)
        if re.match(r"^mockd(\s|$)", command):
            found.append(command)
    return found


def check_documented_options():
    mockd = os.path.join(ROOT, ".build", "debug", "mockd")
    if not os.access(mockd, os.X_OK):
        mockd = os.path.join(ROOT, ".build", "release", "mockd")
    if not os.access(mockd, os.X_OK):
        fail("documented options", "no built mockd (swift build first)")
        return
    serve_flags, top_help = help_flags(mockd, None)
    commands_section = top_help.split("COMMANDS:")[-1].split("OPTIONS:")[0]
    subcommands = set(re.findall(r"^  ([a-z][a-z-]+)\s", commands_section, flags=re.M)) | {"serve"}
    cache = {None: serve_flags}
    for document in documentation():
        name = "mockd options in " + os.path.relpath(document, ROOT)
        problems = []
        commands = documented_mockd_commands(open(document, encoding="utf-8").read())
        for command in commands:
            words = command.split()
            subcommand = None
            if len(words) > 1 and not words[1].startswith("-") and not words[1].startswith("<"):
                if words[1] in subcommands:
                    subcommand = None if words[1] == "serve" else words[1]
                elif re.match(r"^[a-z][a-z-]+$", words[1]) and words[1] not in ("mocks",):
                    problems.append("`%s`: no subcommand '%s'" % (command, words[1]))
                    continue
            if subcommand not in cache:
                cache[subcommand] = help_flags(mockd, subcommand)[0]
            allowed = cache[subcommand] | (serve_flags if subcommand in ("record", "mcp") else set())
            for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", command):
                if flag not in allowed:
                    problems.append("`%s`: %s is not an option of mockd %s" % (command, flag, subcommand or "(serve)"))
        if problems:
            fail(name, "; ".join(dict.fromkeys(problems)))
        else:
            ok("%s (%d commands)" % (name, len(commands)))


# MARK: - shell blocks


PRELUDE = r"""
set -eo pipefail
__state=%(state)s
__serve() {
  # Runs a serving command as a reader would in another terminal: until it prints `listening on`, then on.
  local limit=$1; shift
  if [ -s "$__state/pids" ]; then
    while read -r pid; do kill "$pid" 2>/dev/null || true; done < "$__state/pids"
    while read -r pid; do for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done; done < "$__state/pids"
    : > "$__state/pids"
  fi
  local n; n=$(ls "$__state" | grep -c '^out' || true)
  local out="$__state/out$n" err="$__state/err$n"
  "$@" > >(tee "$out") 2> >(tee "$err" >&2) &
  local pid=$!
  disown "$pid" 2>/dev/null || true  # the block's closing `wait` waits for serves started with &, not for daemons
  echo "$pid" >> "$__state/pids"
  local waited=0
  until grep -q 'listening on' "$out" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "readme-test: '$*' exited before serving: $(tail -n 3 "$err")" >> "$__state/failed"
      return 1
    fi
    if [ "$waited" -ge $((limit * 20)) ]; then
      echo "readme-test: '$*' did not print 'listening on' within $limit s" >> "$__state/failed"
      return 1
    fi
    sleep 0.05; waited=$((waited + 1))
  done
}
mockd() {
  case "${1:-}" in
    serve|record) __serve %(mockd_seconds)d command mockd "$@" ;;
    --version|--help|-h|help) command mockd "$@" ;;
    -*) __serve %(mockd_seconds)d command mockd "$@" ;;
    *) command mockd "$@" ;;
  esac
}
__pinned() { echo "readme-test: pinned: $*"; }
# What the reader exported in an earlier block (their terminal keeps it).
if [ -f "$__state/env" ]; then source "$__state/env"; fi
%(pinned_functions)s
"""


def logical_lines(code):
    """The block's lines with backslash continuations joined, heredoc bodies kept with their command."""
    result = []
    lines = code.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + "\n" + lines[i]
        heredoc = re.search(r"<<-?\s*'?\"?(\w+)'?\"?", line)
        if heredoc:
            end = heredoc.group(1)
            while i + 1 < len(lines):
                i += 1
                line += "\n" + lines[i]
                if lines[i].strip() == end:
                    break
        result.append(line)
        i += 1
    return result


def rewrite(line):
    """The line as the harness runs it, and a note when it is changed (a serve in the background, a pin)."""
    stripped = line.strip()
    if stripped.startswith("scripts/test"):
        return ": pinned scripts/test", "scripts/test: pinned (this check runs inside it)"
    if stripped.startswith("scripts/run"):
        return "__serve %d %s" % (SERVE_SECONDS["scripts/run"], stripped), None
    return line, None


def check_pinned(code, name):
    """The pinned commands of a block: what each needs to hold here."""
    notes = []
    for line in logical_lines(code):
        words = line.strip().split()
        if not words or words[0] not in PINNED:
            continue
        notes.append("%s: %s" % (words[0], PINNED[words[0]]))
        if words[0] == "brew" and len(words) > 2 and words[1] == "install":
            formula = words[2].split("/")[-1]
            # The tap's formula is rendered from this repository's template at each release (docs/RELEASING.md).
            if not os.path.exists(os.path.join(ROOT, "scripts", "release", formula + ".rb.in")):
                fail(name, "brew install %s: no scripts/release/%s.rb.in to render it from" % (words[2], formula))
        if words[0] == "docker" and not os.path.exists(os.path.join(ROOT, "Dockerfile")):
            fail(name, "docker: no Dockerfile")
    return notes


def bring_loopback_up():
    """ioctl(SIOCSIFFLAGS) on lo in a fresh network namespace, without iproute2."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    request = struct.pack("16sH", b"lo", 0)
    flags = struct.unpack("16sH", fcntl.ioctl(sock, 0x8913, request))[1]  # SIOCGIFFLAGS
    fcntl.ioctl(sock, 0x8914, struct.pack("16sH", b"lo", flags | 0x1))  # SIOCSIFFLAGS, IFF_UP
    sock.close()


def port_free(port):
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        sock.close()


def run_shell_blocks(keep):
    mockd = os.path.join(ROOT, ".build", "release", "mockd")
    if not os.access(mockd, os.X_OK):
        fail("shell blocks", "no %s: build it first (scripts/run or swift build -c release "
             "--static-swift-stdlib --product mockd)" % os.path.relpath(mockd, ROOT))
        return
    if not port_free(8080):
        fail("shell blocks", "port 8080 is in use and no private network namespace is available (run as root)")
        return
    work = tempfile.mkdtemp(prefix="mockd-readme-")
    project = os.path.join(work, "project")
    home = os.path.join(work, "home")
    state = os.path.join(work, "state")
    for folder in (project, os.path.join(home, "Downloads"), state):
        os.makedirs(folder)
    shutil.copy(os.path.join(HERE, "shop.har"), os.path.join(home, "Downloads", "shop.har"))
    environment = {
        "HOME": home,
        "PATH": os.path.dirname(mockd) + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
    }
    for name in ("PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "MOCKD_CORPUS"):
        if name in os.environ:
            environment[name] = os.environ[name]
    if os.path.isdir("/opt/swift/usr/bin"):
        environment["PATH"] += ":/opt/swift/usr/bin"
    swift = shutil.which("swift")
    if swift:
        environment["PATH"] += ":" + os.path.dirname(swift)
    prelude = PRELUDE % {
        "state": state,
        "mockd_seconds": SERVE_SECONDS["mockd"],
        "pinned_functions": "\n".join('%s() { __pinned %s "$@"; }' % (c, c) for c in PINNED),
    }
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    shell_blocks = [b for b in fenced_blocks(readme) if b[0] in ("sh", "bash", "shell", "console")]
    if not shell_blocks:
        fail("shell blocks", "README.md has no ```sh block")
    try:
        for language, code, directive, line_number in shell_blocks:
            name = "README.md:%d" % line_number
            syntax = subprocess.run(["bash", "-n"], input=code, text=True, capture_output=True)
            if syntax.returncode != 0:
                fail(name, "bash -n: " + syntax.stderr.strip())
                continue
            cwd = project
            for part in directive.split():
                key, _, value = part.partition("=")
                if key == "cwd":
                    cwd = ROOT if value == "repo" else os.path.join(project, value)
                else:
                    fail(name, "unknown readme-test directive '%s'" % part)
            notes = check_pinned(code, name)
            script = [prelude, "cd %s" % subprocess.list2cmdline([cwd])]
            for line in logical_lines(code):
                rewritten, note = rewrite(line)
                if note:
                    notes.append(note)
                script.append(rewritten)
            script.append("wait")  # a serve started with & has printed `listening on`, or failed
            script.append('export -p | grep -v -E "^declare -x (OLDPWD|PWD|SHLVL|_)=" > "%s/env"' % state)
            log_path = os.path.join(state, "block-%d.log" % line_number)
            started = time.time()
            with open(log_path, "w") as log:
                result = subprocess.run(
                    ["bash", "-c", "\n".join(script)],
                    env=environment,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    timeout=3600,
                )
            output = open(log_path, encoding="utf-8", errors="replace").read()
            serve_failures = ""
            if os.path.exists(os.path.join(state, "failed")):
                serve_failures = open(os.path.join(state, "failed")).read().strip()
                os.remove(os.path.join(state, "failed"))
            if result.returncode != 0 or serve_failures:
                tail = "\n    ".join(output.strip().split("\n")[-12:])
                fail(name, "exit %d after %.0f s%s\n    %s" % (
                    result.returncode, time.time() - started,
                    ("; " + serve_failures) if serve_failures else "", tail))
            else:
                ok("%s (%.0f s, cwd %s)" % (name, time.time() - started,
                                           "repo" if cwd == ROOT else os.path.relpath(cwd, work)))
            for note in dict.fromkeys(notes):
                print("pinned %s: %s" % (name, note), flush=True)
    finally:
        pids = os.path.join(state, "pids")
        if os.path.exists(pids):
            for pid in open(pids).read().split():
                try:
                    os.kill(int(pid), 15)
                except (ProcessLookupError, ValueError):
                    pass
        if keep:
            print("kept %s" % work)
        else:
            time.sleep(0.5)
            shutil.rmtree(work, ignore_errors=True)


# MARK: - Swift blocks


STAND_INS = """
// Stand-ins for what exists only on Apple platforms, so that the README's Swift type-checks here against the real
// MockdClient, MockdTestKit and MockdAppRedirect modules.
import Foundation
import XCTest

final class XCUIElement {
    func tap() {}
    func waitForExistence(timeout: TimeInterval) -> Bool { true }
}
final class XCUIElementQuery {
    subscript(_ identifier: String) -> XCUIElement { XCUIElement() }
}
final class XCUIApplication {
    var launchEnvironment: [String: String] = [:]
    var buttons = XCUIElementQuery()
    var staticTexts = XCUIElementQuery()
    func launch() {}
}
protocol Scene {}
struct WindowGroup<Content>: Scene { init(@SceneContent _ content: () -> Content) {} }
@resultBuilder enum SceneContent { static func buildBlock<C>(_ content: C) -> C { content } }
struct ContentView {}
protocol App {
    associatedtype Body: Scene
    init()
    var body: Body { get }
}
extension App { static func main() {} }
"""


def check_swift_blocks():
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    blocks = [b for b in fenced_blocks(readme) if b[0] == "swift"]
    if not blocks:
        return
    name = "README.md Swift blocks (%d) type-check" % len(blocks)
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True)
    modules = os.path.join(bin_path.stdout.strip(), "Modules")
    if bin_path.returncode != 0 or not os.path.isdir(modules):
        fail(name, "no debug build (swift build --build-tests first)")
        return
    work = tempfile.mkdtemp(prefix="mockd-readme-swift-")
    try:
        files = [os.path.join(work, "StandIns.swift")]
        open(files[0], "w").write(STAND_INS)
        for index, (_, code, _, line_number) in enumerate(blocks):
            path = os.path.join(work, "README_%d.swift" % line_number)
            open(path, "w").write(code)
            files.append(path)
        command = ["swiftc", "-typecheck", "-parse-as-library", "-swift-version", "6", "-I", modules,
                   "-D", "MOCKD_REDIRECT", "-module-name", "ReadmeExamples"] + files
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            fail(name, (result.stdout + result.stderr).strip().replace(work + "/", ""))
        else:
            ok(name)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only-links", action="store_true", help="check the links and options only")
    parser.add_argument("--keep", action="store_true", help="keep the temporary project folder")
    parser.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if not arguments.only_links and os.geteuid() == 0 and not arguments.in_namespace:
        # Again, in a private network namespace: port 8080 is ours and nothing reaches the network.
        probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
        if probe.returncode == 0:
            os.execvp("unshare", ["unshare", "-n", sys.executable, os.path.abspath(__file__), "--in-namespace"]
                      + (["--keep"] if arguments.keep else []))
        print("note: unshare -n is not available; running in the host's network namespace", flush=True)
    if arguments.in_namespace:
        bring_loopback_up()
    check_links()
    check_documented_options()
    if not arguments.only_links:
        check_swift_blocks()
        run_shell_blocks(arguments.keep)
    if failures:
        print("\n%d check(s) failed: %s" % (len(failures), ", ".join(failures)))
        return 1
    print("\nall README and documentation checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
