# tests/browser/lib.sh — for the view_* cases: the headless browser they
# need (Debian's chromium, playwright-core from tests/browser/node_modules,
# installed by ./setup.sh).  need_browser skips the case with a note when
# either is missing, which ./setup.sh never leaves so.
need_browser() {
    if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ] || ! command -v node >/dev/null ||
        [ ! -d "$ROOT/tests/browser/node_modules/playwright-core" ]; then
        note "SKIP: chromium, node or tests/browser/node_modules missing (./setup.sh installs them)"
        exit 0
    fi
}
# check_page PAGE SHOTS_DIR [quick]: the JSON of tests/browser/check_page.js
check_page() {
    mkdir -p "$2"
    timeout 100 node "$ROOT/tests/browser/check_page.js" "$@"
}
