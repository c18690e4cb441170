#!/usr/bin/env bash
# build.sh: the one entry point for building, running and testing R-Type.
#
#   ./build.sh run [args]   install what is missing, build, start the game
#   ./build.sh test         install what is missing, then every check CI runs
#                           (FUZZTIME=2s: fuzz each target that long too)
#   ./build.sh stress [N]   the test suite N times (5) with two CPU hogs beside
#                           it: every failure, with its test's name
#   ./build.sh build        put bin/rtype, bin/rtype-server and the tools in bin/
#                           (the game for browsers first: web/dist/rtype.wasm.gz)
#   ./build.sh deps         install the Debian packages the build needs
#   ./build.sh cross        build the game for windows/amd64
#   ./build.sh release VERSION  the downloads of a release in dist/ ($DIST):
#                           Linux and Windows archives, the arm64 server,
#                           SHA256SUMS (on a Mac: rtype.app in a zip too)
#   ./build.sh image [VERSION]  the server's image FROM scratch with podman
#                           (deploy/Dockerfile.scratch): rtype-server:VERSION
#   ./build.sh soak         the long robustness runs (fuzzing 10 min per target)
#   ./build.sh bench [-quick]  the measurements of BENCHMARKS.md
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages: a cgo Ebitengine build (C toolchain, X11/GL headers,
# ALSA headers, pkg-config), the windowed tests (Xvfb, xauth, Mesa,
# xdotool to press keys, ImageMagick's import to take screenshots) and the
# tests of the PostgreSQL leaderboard (postgresql: its initdb and postgres,
# in /usr/lib/postgresql/*/bin, make and run a throwaway cluster per test
# binary, as the package's user "postgres" when the tests run as root; the
# cluster the package itself sets up is not used), Chromium, in which
# server/ops tests the status page and e2e plays the game built for
# browsers (headless), and redis-server, which the fleet's tests start on
# a loopback port, without persistence, and kill
# (internal/testutil/redistest; the service the package sets up is not
# used), Node.js, which runs the GOOS=js tests of what only a
# browser's one thread shows (assets' TestSynthesisYields), and for the
# release's tests podman (deploy builds the server's image from scratch
# with it, storage driver vfs, no registry), desktop-file-utils and
# appstream (the validators of the Linux desktop entry and metainfo,
# internal/release) and unzip (TestRelease opens the Windows zip with it,
# as a user would). The Windows build needs no C toolchain: Ebitengine
# builds for Windows without cgo. nftables, iproute2 and
# miniupnpd-nftables make internal/natlab's homes: network namespaces
# behind NAT routers, one of which maps ports by UPnP IGD and NAT-PMP
# (as root; the lab's tests skip otherwise).
DEB_PACKAGES=(gcc libc6-dev libgl1-mesa-dev libxcursor-dev libxi-dev
	libxinerama-dev libxrandr-dev libxxf86vm-dev libasound2-dev pkg-config
	xvfb xauth libgl1-mesa-dri xdotool x11-apps imagemagick postgresql chromium redis-server nodejs
	podman desktop-file-utils appstream unzip ca-certificates tzdata
	nftables iproute2 miniupnpd-nftables)

log() { printf '==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

deps() {
	command -v go >/dev/null || die "Go is not installed: install Go 1.26 (https://go.dev/dl/) and put it on PATH"
	if [ "$(uname -s)" = Darwin ]; then
		# macOS: Ebitengine's cgo needs the Xcode command-line tools
		# (xcode-select --install), nothing of the list below.
		command -v cc >/dev/null || die "no C compiler: install the Xcode command-line tools (xcode-select --install)"
		return 0
	fi
	local missing=()
	for p in "${DEB_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get: install them with your package manager"
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || die "missing packages (${missing[*]}): run as root or install sudo"
		sudo=(sudo)
	fi
	log "installing ${missing[*]}"
	"${sudo[@]}" apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get could not install: ${missing[*]}"
}

# wasm builds the game for browsers into web/dist/rtype.wasm.gz, which
# the binaries that serve the page (rtype, rtype-server -web) embed: so
# it comes before them.
wasm() {
	log "building the game for browsers (web/dist/rtype.wasm.gz)"
	GOOS=js GOARCH=wasm CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o web/dist/rtype.wasm .
	gzip -9 -n -f web/dist/rtype.wasm
	local size
	size=$(wc -c <web/dist/rtype.wasm.gz)
	log "web/dist/rtype.wasm.gz: $size bytes"
	# Issue 18's target: the served wasm under 5 MB (web's
	# TestServedWasmSize checks the same in the tests).
	[ "$size" -lt 5000000 ] || die "web/dist/rtype.wasm.gz is $size bytes, not under 5000000: look for packages linked into GOOS=js builds by accident (GOOS=js GOARCH=wasm go list -deps .)"
}

build() {
	mkdir -p bin
	wasm
	log "building bin/rtype and the cmd/ binaries"
	go build -o bin/rtype .
	for d in cmd/*/; do
		go build -o "bin/$(basename "$d")" "./$d"
	done
}

# headless_pkgs lists the packages that do not link Ebitengine, the
# slowest first (go test starts the runs in the order given, as their
# builds allow: the longest runs then overlap the many short ones instead
# of coming last); gui_pkgs the ones that do (they need a display, even
# in tests).
SLOW_FIRST=(rtype/e2e rtype/internal/release rtype/server rtype/internal/natlab
	rtype/assets rtype/deploy rtype/cmd/rtype-server rtype/game/view
	rtype/cmd/rtype-bot rtype/cmd/rtype-bench rtype/net/client rtype/net/link rtype/net/link2)
headless_pkgs() {
	local all p
	all=$(go list -f '{{.ImportPath}} {{join .Deps " "}}' ./... | grep -v 'hajimehoshi/ebiten' | cut -d' ' -f1)
	for p in "${SLOW_FIRST[@]}"; do grep -qx "$p" <<<"$all" && echo "$p"; done
	grep -vxF -f <(printf '%s\n' "${SLOW_FIRST[@]}") <<<"$all"
}
gui_pkgs() { go list -f '{{.ImportPath}} {{join .Deps " "}}' ./... | grep 'hajimehoshi/ebiten' | cut -d' ' -f1; }

# with_display runs a command with an X display: the current one, or a
# virtual one from xvfb-run. Sound goes to ALSA's null device.
with_display() {
	local alsa
	alsa=$(mktemp)
	printf 'pcm.!default { type null }\nctl.!default { type hw card 0 }\n' >"$alsa"
	local rc=0
	if [ -n "${DISPLAY:-}" ] && [ -z "${CI:-}" ]; then
		ALSA_CONFIG_PATH="$alsa" "$@" || rc=$?
	else
		ALSA_CONFIG_PATH="$alsa" xvfb-run -a -s "-screen 0 1280x720x24" "$@" || rc=$?
	fi
	rm -f "$alsa"
	return $rc
}

# fuzz runs every fuzz target for the given time each.
# FUZZJOBS targets run at a time (default 2: a short run is mostly the
# test binary's start and its corpus, which one core does not keep busy);
# a failure of any fails it (xargs: 123), after the others ran.
fuzz() {
	local t=$1 targets
	targets=$(fuzz_targets)
	printf '%s\n' "$targets" | FUZZTIME_ONE=$t xargs -P "${FUZZJOBS:-2}" -L 1 bash -c "$(declare -f log fuzz_one); fuzz_one \"\$0\" \"\$1\" \"\$FUZZTIME_ONE\""
}

# fuzz_targets lists the fuzz targets of the headless packages, a line
# "package FuzzName" each, read from their test files (go test -list would
# build every test binary first).
fuzz_targets() {
	local pkg dir
	go list -f '{{.ImportPath}} {{.Dir}} {{join .Deps " "}}' ./... | grep -v 'hajimehoshi/ebiten' | while read -r pkg dir _; do
		{ grep -ho '^func Fuzz[A-Za-z0-9_]*(' "$dir"/*_test.go 2>/dev/null || true; } | sed 's/^func \(.*\)($/\1/' | sort -u | sed "s|^|$pkg |"
	done
}

# fuzz_one runs one fuzz target, for a duration (2s, 10m) or a count of
# inputs (5000x). Go 1.26's fuzzing coordinator can end a run whose
# duration expired with "context deadline exceeded" and no failing input
# (golang/go#75804, fixed in Go 1.27): that run fuzzed its whole time and
# found nothing, so it passes, with a line that says so. A count has no
# deadline to race. A run that wrote a failing input, or failed any other
# way, fails.
fuzz_one() {
	local pkg=$1 name=$2 t=$3 out
	log "fuzz $pkg $name ($t)"
	if out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "$pkg" 2>&1); then
		printf '%s\n' "$out" | tail -n 1
		return 0
	fi
	if grep -q 'context deadline exceeded' <<<"$out" && ! grep -qE 'Failing input written|^panic:' <<<"$out"; then
		log "fuzz $pkg $name: fuzzed for $t, no failing input; the coordinator's end-of-time race (golang/go#75804) reported it as an error"
		return 0
	fi
	printf '%s\n' "$out"
	return 1
}

# go_tests runs the tests of every package with the race detector: the
# headless packages without a display and the Ebitengine packages under
# one, both at once (GOMAXPROCS packages at a time each). Each run's
# events go to bin/test-results/NAME.json; a line per package is printed
# as it ends; once both are done, internal/testreport prints the log and
# the assertions of every failing test, the slowest tests, and the counts.
# A test's -timeout is a deadlock guard (TESTTIMEOUT, default 20m).
# TESTJOBS sets how many headless packages build and run at a time (go
# test -p; default one more than the CPUs, since many of them wait on
# sockets, processes and timers more than they compute: on 2 cores the
# suite took 7 min 35 s at 2, 4 min 30 s at 3).
go_tests() {
	local dir=bin/test-results report
	mkdir -p "$dir"
	rm -f "$dir"/*.json
	report=$dir/testreport
	go build -o "$report" ./internal/testreport
	local timeout=${TESTTIMEOUT:-20m} testjobs=${TESTJOBS:-$(($(nproc) + 1))}
	[[ "$testjobs" =~ ^[1-9][0-9]*$ ]] || die "TESTJOBS is a count of packages, not \"$testjobs\""
	local jobs=(-p "$testjobs")
	log "go test -race: the headless packages (no display) and the Ebitengine packages (under Xvfb), at once"
	local gui rc_h=0 rc_g=0
	gui=$(gui_pkgs)
	# shellcheck disable=SC2046
	(set -o pipefail; env -u DISPLAY go test -race -count=1 -timeout "$timeout" "${jobs[@]}" -json $(headless_pkgs) 2>&1 |
		"$report" -progress -label headless >"$dir/headless.json") &
	local pid_h=$!
	if [ -n "$gui" ]; then
		# shellcheck disable=SC2086
		(set -o pipefail; with_display go test -race -count=1 -timeout "$timeout" -json $gui 2>&1 |
			"$report" -progress -label windowed >"$dir/windowed.json") || rc_g=$?
	fi
	wait "$pid_h" || rc_h=$?
	log "go test done: headless exit $rc_h, windowed exit $rc_g; every event in $dir/*.json"
	local rc_s=0
	"$report" -summary "$dir"/*.json || rc_s=$?
	[ "$rc_h" -eq 0 ] && [ "$rc_g" -eq 0 ] && [ "$rc_s" -eq 0 ] || die "go test failed (above: the failing tests, each with its log and its assertions)"
}

# stress runs the whole suite N times in a row, with two CPU-bound
# processes beside it, as a busy CI machine has them, and lists every run
# with its time and the tests that failed in it. It exits 1 when any run
# failed. Each run's report is in bin/stress/RUN.txt.
stress() {
	local n=${1:-5} i rc start failed=0
	[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ] || die "stress N: N is a count of runs, not \"$n\""
	mkdir -p bin/stress
	sh -c 'while :; do :; done' &
	local hog1=$!
	sh -c 'while :; do :; done' &
	local hog2=$!
	# shellcheck disable=SC2064
	trap "kill $hog1 $hog2 2>/dev/null || true" EXIT
	local summary=()
	for i in $(seq 1 "$n"); do
		log "stress: run $i of $n, two CPU hogs beside it"
		start=$(date +%s)
		rc=0
		"$0" test >"bin/stress/$i.txt" 2>&1 || rc=$?
		local secs=$(($(date +%s) - start)) what
		if [ "$rc" -eq 0 ]; then
			what="passed"
		else
			failed=$((failed + 1))
			what="FAILED: $(failures_of "bin/stress/$i.txt")"
		fi
		summary+=("run $i: $what (${secs} s)")
		log "stress: run $i: $what (${secs} s); its output: bin/stress/$i.txt"
	done
	kill "$hog1" "$hog2" 2>/dev/null || true
	printf '%s\n' "${summary[@]}"
	log "stress: $((n - failed)) of $n runs passed"
	[ "$failed" -eq 0 ]
}

# failures_of prints the failures a report of build.sh test lists, on one
# line; or, when it failed before the tests, its last words.
failures_of() {
	local f
	f=$(sed -n '/^FAILED:$/,$p' "$1" | grep -E '^(FAIL|UNFINISHED|NOT ENDED|BUILD FAILED) ' | paste -sd ';' - || true)
	if [ -n "$f" ]; then
		printf '%s' "$f"
	else
		printf 'before the tests: %s' "$(grep -m1 '^build.sh: ' "$1" || tail -n 1 "$1")"
	fi
}

test_all() {
	deps
	log "gofmt"
	local unformatted
	unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	[ -z "$unformatted" ] || die "gofmt would change: $unformatted"
	log "go vet"
	go vet ./...
	log "go vet and build for browsers (GOOS=js)"
	GOOS=js GOARCH=wasm go vet ./net/wtjs ./game/settings
	# As the tests build it (internal/browsertest): they find its packages
	# compiled.
	GOOS=js GOARCH=wasm CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /dev/null .
	log "go test for browsers (GOOS=js, under Node.js): the sound's synthesis lets the page's thread go"
	GOOS=js GOARCH=wasm go test -count=1 -run TestSynthesisYields -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./assets/
	log "headless packages must not link Ebitengine"
	local bad
	bad=$(go list -f '{{.ImportPath}} {{join .Deps " "}}' ./net/... ./sim/... ./server/... ./cmd/... ./game/view/... ./render/model/... ./web/... | grep 'hajimehoshi/ebiten' | cut -d' ' -f1 || true)
	[ -z "$bad" ] || die "these packages link Ebitengine and would panic without a display: $bad"
	log "render depends on neither the server nor the game"
	bad=$(go list -deps ./render | grep -E '^rtype/(server|game)(/|$)' || true)
	[ -z "$bad" ] || die "package render imports $bad"
	go_tests
	# go test ran every fuzz target's committed corpus (testdata/fuzz)
	# above, as tests. Fuzzing proper builds every package again with
	# coverage instrumentation (minutes on a cold cache, against CI's 20):
	# FUZZTIME=2s ./build.sh test adds a short run of each; soak fuzzes.
	if [ -n "${FUZZTIME:-}" ]; then
		log "fuzz targets: a run of $FUZZTIME each"
		fuzz "$FUZZTIME"
	else
		log "fuzz targets: their committed corpora ran with go test; FUZZTIME=2s also fuzzes each"
	fi
}

# release VERSION writes the downloads of a release into dist/ (or
# $DIST), from a copy of the source tree (the files git tracks or would
# track, as they are now) in a temporary directory, where the game for
# browsers and the game's Windows resources (icon, version) are put before
# the binaries that embed them:
#
#   rtype-VERSION-linux-amd64.tar.gz   rtype (cgo), rtype-server, rtype-bot,
#                                      README.md, NOTICES.txt, share/ (the
#                                      desktop entry, icon and metainfo)
#   rtype-VERSION-windows-amd64.zip    rtype.exe (icon, version resource),
#                                      rtype-server.exe, README.md, NOTICES.txt
#   rtype-server-VERSION-linux-arm64   the server alone (no cgo), and its
#                                      .NOTICES.txt
#   rtype-VERSION-macos-ARCH.zip       on a Mac only: rtype.app (untested)
#   SHA256SUMS
#
# Every binary says VERSION (-version, the first log line, the title
# screen, the server's status page and rtype_build_info). The same commit
# gives the same bytes: -trimpath, no VCS stamp, no build id, archive
# entries in name order dated the commit's time ($SOURCE_DATE_EPOCH when
# set). internal/release/mkrelease does the packaging; TestRelease checks
# all of it. RELEASE_PLATFORMS (default "linux-amd64 windows-amd64
# linux-arm64") builds only those: TestRelease's second build, which
# checks the bytes are the same, builds linux-amd64 alone.
release() {
	local ver=${1:-}
	[[ "$ver" =~ ^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$ ]] ||
		die "release VERSION: VERSION (\"$ver\") is letters, digits and . + _ - (v1.2.0)"
	local out=${DIST:-dist} epoch tmp
	epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	local src=$tmp/src bin=$tmp/bin
	mkdir -p "$src" "$bin"/{linux-amd64,windows-amd64,linux-arm64} "$out"
	out=$(cd "$out" && pwd)
	if git rev-parse --git-dir >/dev/null 2>&1; then
		[ -z "$(git status --porcelain 2>/dev/null)" ] || log "release $ver: the tree has changes not committed: they go in"
		git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf - | tar -xf - -C "$src"
	else
		tar --exclude=./bin --exclude=./dist --exclude=./.git -cf - . | tar -xf - -C "$src"
	fi
	local flags=(-trimpath -buildvcs=false) ld="-s -w -buildid= -X rtype/internal/version.Version=$ver"
	local platforms=" ${RELEASE_PLATFORMS:-linux-amd64 windows-amd64 linux-arm64} " p
	for p in $platforms; do
		[[ " linux-amd64 windows-amd64 linux-arm64 " == *" $p "* ]] || die "RELEASE_PLATFORMS: \"$p\" is none of linux-amd64 windows-amd64 linux-arm64"
	done
	(
		cd "$src"
		log "release $ver: the game for browsers, embedded by rtype and rtype-server"
		GOOS=js GOARCH=wasm CGO_ENABLED=0 go build "${flags[@]}" -ldflags="$ld" -o web/dist/rtype.wasm .
		gzip -9 -n -f web/dist/rtype.wasm
		if [ "$(uname -s)" = Linux ] && [[ $platforms == *" linux-amd64 "* ]]; then
			# The game links the C libraries of Linux's desktop (cgo):
			# built on Linux only.
			log "release $ver: linux/amd64 (rtype with cgo; rtype-server and rtype-bot static)"
			CGO_ENABLED=1 GOARCH=amd64 go build "${flags[@]}" -ldflags="$ld" -o "$bin/linux-amd64/rtype" .
			GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build "${flags[@]}" -ldflags="$ld" -o "$bin/linux-amd64/rtype-server" ./cmd/rtype-server
			GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build "${flags[@]}" -ldflags="$ld" -o "$bin/linux-amd64/rtype-bot" ./cmd/rtype-bot
		fi
		if [[ $platforms == *" windows-amd64 "* ]]; then
			log "release $ver: windows/amd64 (no cgo; rtype.exe with its icon and version resource)"
			go run ./internal/release/mkrelease syso -version "$ver" -o rsrc_release_windows_amd64.syso
			GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build "${flags[@]}" -ldflags="$ld -H=windowsgui" -o "$bin/windows-amd64/rtype.exe" .
			GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build "${flags[@]}" -ldflags="$ld" -o "$bin/windows-amd64/rtype-server.exe" ./cmd/rtype-server
		fi
		if [[ $platforms == *" linux-arm64 "* ]]; then
			log "release $ver: linux/arm64 (rtype-server, static)"
			GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build "${flags[@]}" -ldflags="$ld" -o "$bin/linux-arm64/rtype-server" ./cmd/rtype-server
		fi
		if [ "$(uname -s)" = Darwin ]; then
			# Ebitengine needs cgo on macOS: built here, on a Mac, only.
			log "release $ver: macOS $(go env GOARCH) (rtype.app; untested by the project's CI)"
			mkdir -p "$bin/darwin-$(go env GOARCH)"
			CGO_ENABLED=1 go build "${flags[@]}" -ldflags="$ld" -o "$bin/darwin-$(go env GOARCH)/rtype" .
		fi
		rm -f "$out"/rtype-*-linux-amd64.tar.gz "$out"/rtype-*-windows-amd64.zip \
			"$out"/rtype-*-macos-*.zip "$out"/rtype-server-*-linux-arm64* "$out/SHA256SUMS"
		log "release $ver: archives, notices and SHA256SUMS in $out"
		go run ./internal/release/mkrelease package -version "$ver" -bin "$bin" -dist "$out" -readme README.md -epoch "$epoch"
	)
	(cd "$out" && ls -l rtype-*"$ver"* SHA256SUMS) >&2
}

# image [VERSION] builds the server's container image from scratch
# (deploy/Dockerfile.scratch) with podman, tagged rtype-server:VERSION
# (dev): a static rtype-server (-trimpath; -X the version when given), the
# machine's CA certificates and time zones, an unprivileged user. No
# registry is needed. PODMAN_ROOT, when set, is where podman keeps its
# images (--root; the tests use a directory of their own); the storage
# driver is vfs, which works in any container or VM.
image() {
	local ver=${1:-} tag=${1:-dev} tmp
	[[ "$tag" =~ ^[0-9A-Za-z][0-9A-Za-z._-]{0,127}$ ]] || die "image VERSION: \"$tag\" is not a tag"
	command -v podman >/dev/null || die "podman is not installed (./build.sh deps)"
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	local ld="-s -w -buildid="
	[ -z "$ver" ] || ld="$ld -X rtype/internal/version.Version=$ver"
	log "image: the static rtype-server"
	mkdir -p "$tmp/rootfs/etc/ssl/certs" "$tmp/rootfs/usr/share" "$tmp/data"
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="$ld" -o "$tmp/rootfs/rtype-server" ./cmd/rtype-server
	cp /etc/ssl/certs/ca-certificates.crt "$tmp/rootfs/etc/ssl/certs/" || die "no CA certificates: install ca-certificates"
	cp -a /usr/share/zoneinfo "$tmp/rootfs/usr/share/" || die "no time zones: install tzdata"
	rm -f "$tmp/rootfs/usr/share/zoneinfo/localtime" # Debian's link to /etc/localtime
	printf 'root:x:0:0:root:/:/sbin/nologin\nrtype:x:65532:65532:rtype:/data:/sbin/nologin\n' >"$tmp/rootfs/etc/passwd"
	printf 'root:x:0:\nrtype:x:65532:\n' >"$tmp/rootfs/etc/group"
	local podman=(podman --storage-driver vfs)
	[ -z "${PODMAN_ROOT:-}" ] || podman+=(--root "$PODMAN_ROOT/storage" --runroot "$PODMAN_ROOT/run")
	log "image: podman build rtype-server:$tag (deploy/Dockerfile.scratch)"
	"${podman[@]}" build --quiet -f deploy/Dockerfile.scratch -t "rtype-server:$tag" "$tmp"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
deps) deps ;;
build) deps; build ;;
run) deps; build; exec ./bin/rtype "$@" ;;
test) test_all ;;
stress) stress "$@" ;;
cross)
	mkdir -p bin
	log "windows/amd64"
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -ldflags -H=windowsgui -o bin/rtype.exe . && log "built bin/rtype.exe"
	log "darwin and cgo-less linux are not built: Ebitengine needs cgo (or a macOS SDK) there"
	log "bin/rtype.exe has no icon nor version resource: ./build.sh release VERSION makes the Windows zip with them"
	;;
soak)
	deps
	log "impairment profiles, 60 s each"
	go test -count=1 -timeout 30m -run '^TestSoak$' ./e2e/ -soak "${SOAKTIME:-60s}"
	log "fuzz targets, ${FUZZTIME:-10m} each"
	fuzz "${FUZZTIME:-10m}"
	;;
bench) deps; go run ./cmd/rtype-bench "$@" ;;
release) deps; release "$@" ;;
image) deps; image "$@" ;;
*)
	sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
	[ -z "$cmd" ] || die "unknown command: $cmd"
	;;
esac
