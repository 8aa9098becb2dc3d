#!/bin/sh
# Make sure the headless browser used by tests/app/test_web_browser.py is installed.
# Debian/Ubuntu/Raspberry Pi OS: the `chromium` and `chromium-driver` packages.
# Exit 0 when /usr/bin/chromium is there (installed now or before); exit 1 with a reason
# when it is missing and cannot be installed here (not root, or no apt-get).
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "ensure_chromium: /usr/bin/chromium is missing and we are not root;" \
         "run: sudo apt-get install -y chromium chromium-driver" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_chromium: /usr/bin/chromium is missing and there is no apt-get;" \
         "install Chromium with this system's package manager" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium chromium-driver
test -x /usr/bin/chromium
