# Sourced by bench/fresh-clone.sh and bench/fresh-run.sh: a fresh clone of this
# repository's HEAD in a new temporary folder (`$dir`, named after $1), ../shared beside
# it, and empty cargo, npm and pip caches; leaves the shell in the clone.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=$(mktemp -d "/tmp/hexrisk-$1-XXXXXX")
echo "fresh clone in $dir"
git clone -q "$root" "$dir/hexrisk"
ln -s "$(cd "$root/../shared" && pwd)" "$dir/shared"
mkdir -p "$dir/cargo-home" "$dir/npm-cache"
export CARGO_HOME=$dir/cargo-home npm_config_cache=$dir/npm-cache PIP_NO_CACHE_DIR=1
# rustup's proxies stay on PATH; only the cargo home (registry, git, installs) is new.
export PATH=$HOME/.cargo/bin:$PATH
cd "$dir/hexrisk"
