#!/usr/bin/env bash
RT15=${RT15:-$(cd "$(dirname "$0")" && pwd)}
# Controls: a medium change signed by the agent alone lands; a high change
# (crypto/**, AKIA) needs agent + alice and lands with both.
source "$RT15/common.sh"
setup_team >/dev/null
mkdir -p "$R/tools"; printf 'print("build")\n' > "$R/tools/build.py"
agent_step "01-0 legit medium: tools/build.py"
mkdir -p "$R/crypto"; printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' > "$R/crypto/key.rs"
agent_step "01-1 control high by the agent alone: crypto/key.rs (AKIA)"
fresh; mkdir -p "$R/crypto"; printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' > "$R/crypto/key.rs"
echo "    01-2 start: $(risk_of_live)"
L=$(approve_live); sign agent "$L"; sign alice "$L"; Y=$(commit_all "01-2 crypto key"); out=$(push_past main)
verdict "01-2 legit high (agent + alice)" main "$Y" "$out"
