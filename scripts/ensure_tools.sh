# shellcheck shell=bash
# Sourced by scripts/test.sh and scripts/demo.sh. axe_ensure_tools CMD...
# installs, with apt-get (Debian 12), the packages for the commands that are
# missing, and nothing when all are there. As root it calls apt-get directly,
# otherwise through sudo.

# The Debian packages that provide command "$1" (installed without
# recommends, so the ones a build needs are named here).
axe_packages_for() {
    case $1 in
    ninja) echo ninja-build ;;
    gcc | cc) echo gcc libc6-dev ;;
    clang) echo clang libclang-rt-dev ;;
    chromedriver) echo chromium-driver ;;
    python3-config) echo python3-dev python3-venv ;;
    # The TikZ pictures use the standalone class (texlive-latex-extra) and
    # TikZ (texlive-pictures); measured on Debian 12: 89 MB to download,
    # 322 MB installed, under a minute.
    pdflatex) echo texlive-latex-base texlive-latex-extra texlive-pictures ;;
    pdfinfo | pdftotext | pdftoppm) echo poppler-utils ;;
    mpicc | mpirun) echo openmpi-bin libopenmpi-dev ;;
    *) echo "$1" ;;
    esac
}

# Whether command "$1" is here; pdflatex counts only with the classes the
# TikZ test needs (a bare texlive-latex-base has pdflatex without them).
axe_have() {
    command -v "$1" >/dev/null 2>&1 || return 1
    case $1 in
    pdflatex) kpsewhich standalone.cls tikz.sty 2>/dev/null | [ "$(wc -l)" -eq 2 ] ;;
    esac
}

axe_ensure_tools() {
    local cmd extra missing=() packages=() sudo=()
    for cmd in "$@"; do
        if ! axe_have "$cmd"; then
            missing+=("$cmd")
            read -r -a extra <<<"$(axe_packages_for "$cmd")"
            packages+=("${extra[@]}")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Missing: ${missing[*]}; installing: ${packages[*]}"
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: no apt-get here; install these packages by hand: ${packages[*]}" >&2
        return 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "error: not root and no sudo; install: ${packages[*]}" >&2
            return 1
        fi
        sudo=(sudo)
    fi
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
        ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends "${packages[@]}" >/dev/null; then
        echo "error: apt-get could not install: ${packages[*]}" >&2
        return 1
    fi
    for cmd in "${missing[@]}"; do
        if ! axe_have "$cmd"; then
            echo "error: '$cmd' is still missing after installing ${packages[*]}" >&2
            return 1
        fi
    done
}
