#!/usr/bin/env bash
# Command-line contract of cucatch-ptx: round trip through files and pipes, diagnostics with
# file:line:col and exit code 2, no output file written on error.
set -u
tool=${CUCATCH_PTX:?set CUCATCH_PTX to the cucatch-ptx binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi; }

cat > "$tmp/good.ptx" <<'PTX'
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	ret;
}
PTX
"$tool" --mode=none "$tmp/good.ptx" -o "$tmp/out.ptx"; rc=$?
check "file to file exits 0" '[ $rc -eq 0 ] && [ -s "$tmp/out.ptx" ]'
"$tool" --mode=none - -o - < "$tmp/good.ptx" > "$tmp/pipe.ptx"; rc=$?
check "stdin to stdout exits 0 and prints the same as file mode" '[ $rc -eq 0 ] && cmp -s "$tmp/pipe.ptx" "$tmp/out.ptx"'
"$tool" "$tmp/good.ptx" -o "$tmp/checked.ptx"; rc=$?
check "the default mode instruments" '[ $rc -eq 0 ] && grep -q __cucatch_state "$tmp/checked.ptx"'
"$tool" "$tmp/checked.ptx" -o "$tmp/twice.ptx" 2> "$tmp/err"; rc=$?
check "an instrumented module is refused, with a message" '[ $rc -eq 2 ] && grep -q "already instrumented" "$tmp/err" && [ ! -e "$tmp/twice.ptx" ]'

printf '.version 8.0\n.target sm_80\n.entry k()\n{\n\tld.global.u32 %%r1 [%%rd1];\n}\n' > "$tmp/bad.ptx"
"$tool" "$tmp/bad.ptx" -o "$tmp/bad.out" 2> "$tmp/err"; rc=$?
check "syntax error exits 2" '[ $rc -eq 2 ]'
check "syntax error is reported as file:line:col: error:" 'grep -q "^$tmp/bad.ptx:5:20: error: " "$tmp/err"'
check "no output file on error" '[ ! -e "$tmp/bad.out" ] && [ ! -e "$tmp/bad.out.cucatch-tmp" ]'

printf '.version 8.0\n.target sm_80\n.address_size 32\n.entry k()\n{\n\tret;\n}\n' > "$tmp/narrow.ptx"
"$tool" "$tmp/narrow.ptx" -o "$tmp/narrow.out" --register-limit none 2> "$tmp/err"; rc=$?
check "a refused directive is reported at its line" '[ $rc -eq 2 ] && grep -q "^$tmp/narrow.ptx:3:[0-9]*: error: 32-bit addresses" "$tmp/err"'

"$tool" "$tmp/missing.ptx" -o "$tmp/x.ptx" 2> "$tmp/err"; rc=$?
check "missing input exits 2 with a message" '[ $rc -eq 2 ] && grep -q "cannot open" "$tmp/err"'
"$tool" --mode=bogus "$tmp/good.ptx" -o "$tmp/x.ptx" 2> /dev/null; rc=$?
check "unknown mode is refused" '[ $rc -ne 0 ] && [ ! -e "$tmp/x.ptx" ]'
"$tool" "$tmp/good.ptx" -o "$tmp/nodir/x.ptx" 2> "$tmp/err"; rc=$?
check "unwritable output exits 1" '[ $rc -eq 1 ] && grep -q "cannot write" "$tmp/err"'

echo "$(( 10 - fails )) passed, $fails failed"
[ $fails -eq 0 ]
