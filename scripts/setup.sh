#!/usr/bin/env bash
# Create .venv and install burako (editable) with the extras asked for, once:
#
#   bash scripts/setup.sh            # train: the core and the ppo agent's torch (run.sh)
#   bash scripts/setup.sh all,dev    # every extra and the test tools (test.sh, CI)
#
# A second call with nothing changed runs no installer and prints nothing: .venv/.burako-setup
# holds a hash of pyproject.toml and the torch requirement, and the extras installed with
# them. The installer runs again when pyproject.toml or the torch requirement changed, or
# when an extra is asked for that is not installed yet (all stands for its five).
#
# The train and rllib extras ask for torch>=2.2; here it is pinned to the CPU build that
# this machine keeps on disk (pip's find-links), where the newest torch of the index would
# be a CUDA build of several GB. The rllib extra also pins gymnasium to RLlib's version
# (ray[rllib]'s own pin, 1.2.2 for ray 2.60). BURAKO_TORCH sets another requirement, e.g.
# BURAKO_TORCH=torch for the newest.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-train}"
torch="${BURAKO_TORCH:-torch==2.13.0}"
stamp=.venv/.burako-setup
# what `all` stands for (pyproject's all extra)
all_extras="train,web,ray,rllib,openspiel,postgres"

sources_hash() {
  # the hash of what the install depends on besides the extras
  python3 - "$torch" <<'EOF'
import hashlib, pathlib, sys
digest = hashlib.sha256(pathlib.Path("pyproject.toml").read_bytes())
digest.update(("\0torch=" + sys.argv[1]).encode())
print(digest.hexdigest())
EOF
}

# the extras of a comma-separated list, one a line, sorted, "all" expanded
expand() {
  local extra
  for extra in ${1//,/ }; do
    if [ "$extra" = all ]; then
      echo "${all_extras//,/$'\n'}"
    else
      echo "$extra"
    fi
  done | sort -u
}

want_hash="$(sources_hash)"
installed=""
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$want_hash" ]; then
  installed="$(sed -n 2p "$stamp")"
  missing="$(comm -23 <(expand "$extras") <(expand "$installed"))"
  if [ -z "$missing" ]; then
    exit 0 # nothing changed: no installer, no output
  fi
fi
# the union: what is installed stays in the stamp
extras_now="$( (expand "$installed"; expand "$extras") | sort -u | paste -sd, -)"

case ",$extras_now," in
  *,dev,* | *,ray,* | *,rllib,*) size="about 2.5 GB, 5 to 10 minutes" ;;
  *,train,*) size="about 1.3 GB (torch's CPU build: 0.75 GB), 2 to 5 minutes" ;;
  *) size="about 0.4 GB, 1 to 2 minutes" ;;
esac
echo "setup: installing burako[$extras_now] and $torch into .venv ($size the first time;" \
  "pip's progress below; a second run with nothing changed skips this)" >&2
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
rm -f "$stamp" # an install cut short leaves no stamp: the next run installs again
.venv/bin/python -m pip install --quiet --upgrade pip
if ! .venv/bin/python -m pip install -e ".[$extras_now]" "$torch"; then
  echo "setup: pip install failed (above); the next run tries again" >&2
  exit 1
fi
printf '%s\n%s\n' "$want_hash" "$extras_now" >"$stamp"
echo "setup: done (.venv, burako[$extras_now])" >&2
