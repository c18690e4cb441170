// Package deploy holds what runs rtype-server on Kubernetes with Agones:
// a Dockerfile, a Fleet, a FleetAutoscaler and a GameServerAllocation;
// and Dockerfile.scratch, the same image FROM scratch, which builds with
// no registry (./build.sh image). Docker, Kubernetes and Agones do not
// run here: these tests check the files' structure and key lines, and
// run the binary the Dockerfile builds (built the same way) with the
// Fleet's arguments against a stub of the Agones SDK sidecar. Podman
// does: TestScratchImage builds the scratch image and reads it back.
package deploy

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"rtype/internal/agonesstub"
	"rtype/internal/testutil"
)

// dockerLine is one instruction of a Dockerfile, continuation lines
// joined.
type dockerLine struct {
	instr, args string
	stage       int // 0 for the first FROM's stage
}

// readDockerfile returns the instructions of the Dockerfile.
func readDockerfile(t *testing.T) []dockerLine {
	t.Helper()
	return readDockerfileNamed(t, "Dockerfile")
}

// readDockerfileNamed returns the instructions of the Dockerfile name.
func readDockerfileNamed(t *testing.T, name string) []dockerLine {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []dockerLine
	stage, cur := -1, ""
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if cur == "" && (l == "" || strings.HasPrefix(l, "#")) {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		cur += l
		instr, args, _ := strings.Cut(cur, " ")
		instr = strings.ToUpper(instr)
		if instr == "FROM" {
			stage++
		}
		out = append(out, dockerLine{instr: instr, args: strings.Join(strings.Fields(args), " "), stage: stage})
		cur = ""
	}
	return out
}

// dockerUser returns the uid of the final stage's USER.
func dockerUser(t *testing.T, lines []dockerLine) int {
	t.Helper()
	last := lines[len(lines)-1].stage
	for _, l := range lines {
		if l.instr == "USER" && l.stage == last {
			uid, _, _ := strings.Cut(l.args, ":")
			n, err := strconv.Atoi(uid)
			if err != nil {
				t.Fatalf("USER %s: want a numeric uid, so that Kubernetes' runAsNonRoot can check it", l.args)
			}
			return n
		}
	}
	t.Fatal("the final stage has no USER: it would run as root")
	return 0
}

// The Dockerfile builds a static binary in a first stage and runs it as
// a non-root user in a second, with the game port open on TCP and UDP
// and the leaderboard in the /data volume.
func TestDockerfile(t *testing.T) {
	lines := readDockerfile(t)
	last := lines[len(lines)-1].stage
	if last < 1 {
		t.Fatalf("%d stage(s): want a build stage and a run stage", last+1)
	}
	has := func(instr string, stage int, re string) bool {
		for _, l := range lines {
			if l.instr == instr && (stage < 0 || l.stage == stage) && regexp.MustCompile(re).MatchString(l.args) {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		instr string
		stage int
		re    string
	}{
		{"FROM", 0, `^golang:1\.26\S* AS build$`},
		{"RUN", 0, `\bCGO_ENABLED=0 .*go build .*-o /out/rtype-server \./cmd/rtype-server\b`},
		{"FROM", last, `^(scratch|gcr\.io/distroless/static\S*)$`},
		{"COPY", last, `^--from=build /out/rtype-server /rtype-server$`},
		{"COPY", last, `^--from=build --chown=65532:65532 /out/data /data$`},
		{"VOLUME", last, `"/data"`},
		{"EXPOSE", last, `^4242/udp$`},
		{"EXPOSE", last, `^4242/tcp$`},
		{"ENTRYPOINT", last, `^\["/rtype-server"\]$`},
		{"CMD", last, `"-db", "/data/scores\.db"`},
	} {
		if !has(c.instr, c.stage, c.re) {
			t.Errorf("no %s matching %s in stage %d", c.instr, c.re, c.stage)
		}
	}
	if uid := dockerUser(t, lines); uid == 0 {
		t.Error("USER 0: the server must not run as root")
	}
	if _, err := os.Stat("Dockerfile.dockerignore"); err != nil {
		t.Errorf("no Dockerfile.dockerignore: the build context would carry .git: %v", err)
	}
}

// fleet is what the tests read of fleet.yaml.
type fleet struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas int `yaml:"replicas"`
		Template struct {
			Spec struct {
				Ports []struct {
					Name          string `yaml:"name"`
					PortPolicy    string `yaml:"portPolicy"`
					ContainerPort int    `yaml:"containerPort"`
					Protocol      string `yaml:"protocol"`
				} `yaml:"ports"`
				Health struct {
					Disabled            bool `yaml:"disabled"`
					InitialDelaySeconds int  `yaml:"initialDelaySeconds"`
					PeriodSeconds       int  `yaml:"periodSeconds"`
					FailureThreshold    int  `yaml:"failureThreshold"`
				} `yaml:"health"`
				Template struct {
					Spec struct {
						SecurityContext struct {
							RunAsNonRoot bool `yaml:"runAsNonRoot"`
							RunAsUser    int  `yaml:"runAsUser"`
						} `yaml:"securityContext"`
						Containers []struct {
							Name         string   `yaml:"name"`
							Image        string   `yaml:"image"`
							Args         []string `yaml:"args"`
							VolumeMounts []struct {
								Name      string `yaml:"name"`
								MountPath string `yaml:"mountPath"`
							} `yaml:"volumeMounts"`
						} `yaml:"containers"`
						Volumes []struct {
							Name string `yaml:"name"`
						} `yaml:"volumes"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// readYAML decodes one YAML document of the file into v.
func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func readFleet(t *testing.T) fleet {
	t.Helper()
	var f fleet
	readYAML(t, "fleet.yaml", &f)
	if len(f.Spec.Template.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("fleet.yaml: %d containers, want 1", len(f.Spec.Template.Spec.Template.Spec.Containers))
	}
	return f
}

// argValue returns the value after flag in args.
func argValue(args []string, flag string) (string, bool) {
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		return "", false
	}
	return args[i+1], true
}

// The Fleet runs the image with -agones on port 4242 (TCP and UDP, one
// host port), with a health check that the server's Health interval
// meets, as the Dockerfile's non-root user.
func TestFleet(t *testing.T) {
	f := readFleet(t)
	gs := f.Spec.Template.Spec
	pod := gs.Template.Spec
	c := pod.Containers[0]
	if f.APIVersion != "agones.dev/v1" || f.Kind != "Fleet" || f.Metadata.Name == "" || f.Spec.Replicas < 1 {
		t.Errorf("fleet.yaml: %s %s %q with %d replicas: want an agones.dev/v1 Fleet", f.APIVersion, f.Kind, f.Metadata.Name, f.Spec.Replicas)
	}
	if len(gs.Ports) != 1 || gs.Ports[0].ContainerPort != 4242 || gs.Ports[0].Protocol != "TCPUDP" || gs.Ports[0].PortPolicy != "Dynamic" {
		t.Errorf("fleet.yaml ports %+v: want containerPort 4242, protocol TCPUDP, portPolicy Dynamic", gs.Ports)
	}
	if l, _ := argValue(c.Args, "-listen"); !strings.HasSuffix(l, ":4242") {
		t.Errorf("fleet.yaml: -listen %q, want the containerPort 4242", l)
	}
	if !slices.Contains(c.Args, "-agones") {
		t.Errorf("fleet.yaml args %q: no -agones", c.Args)
	}
	health := 2 * time.Second
	if v, ok := argValue(c.Args, "-agones-health"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("fleet.yaml: -agones-health %q: %v", v, err)
		}
		health = d
	}
	h := gs.Health
	if h.Disabled || h.PeriodSeconds < 1 || h.FailureThreshold < 1 || time.Duration(h.PeriodSeconds)*time.Second < 2*health {
		t.Errorf("fleet.yaml health %+v: want it on, with periodSeconds at least twice -agones-health (%v)", h, health)
	}
	lines := readDockerfile(t)
	if !pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.RunAsUser != dockerUser(t, lines) {
		t.Errorf("fleet.yaml securityContext %+v: want runAsNonRoot and the Dockerfile's USER %d", pod.SecurityContext, dockerUser(t, lines))
	}
	db, _ := argValue(c.Args, "-db")
	mounted := false
	for _, m := range c.VolumeMounts {
		mounted = mounted || (m.MountPath == "/data" && strings.HasPrefix(db, "/data/"))
	}
	if !mounted {
		t.Errorf("fleet.yaml: -db %q is not on the volume mounted at /data (%+v)", db, c.VolumeMounts)
	}
	if c.Image != "rtype-server:dev" {
		t.Errorf("fleet.yaml image %q: OPERATING.md builds and loads rtype-server:dev", c.Image)
	}
}

// The FleetAutoscaler keeps a buffer of the Fleet's Ready servers, and
// the GameServerAllocation takes one of them.
func TestAutoscalerAndAllocation(t *testing.T) {
	f := readFleet(t)
	var fa struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			FleetName string `yaml:"fleetName"`
			Policy    struct {
				Type   string `yaml:"type"`
				Buffer struct {
					BufferSize  int `yaml:"bufferSize"`
					MinReplicas int `yaml:"minReplicas"`
					MaxReplicas int `yaml:"maxReplicas"`
				} `yaml:"buffer"`
			} `yaml:"policy"`
		} `yaml:"spec"`
	}
	readYAML(t, "fleetautoscaler.yaml", &fa)
	b := fa.Spec.Policy.Buffer
	if fa.APIVersion != "autoscaling.agones.dev/v1" || fa.Kind != "FleetAutoscaler" || fa.Spec.FleetName != f.Metadata.Name ||
		fa.Spec.Policy.Type != "Buffer" || b.BufferSize < 1 || b.MinReplicas < b.BufferSize || b.MaxReplicas <= b.MinReplicas {
		t.Errorf("fleetautoscaler.yaml %+v: want a Buffer policy of fleet %q with 0 < bufferSize <= minReplicas < maxReplicas", fa, f.Metadata.Name)
	}
	var ga struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			Selectors []struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"selectors"`
		} `yaml:"spec"`
	}
	readYAML(t, "allocation.yaml", &ga)
	if ga.APIVersion != "allocation.agones.dev/v1" || ga.Kind != "GameServerAllocation" || len(ga.Spec.Selectors) != 1 ||
		ga.Spec.Selectors[0].MatchLabels["agones.dev/fleet"] != f.Metadata.Name {
		t.Errorf("allocation.yaml %+v: want a GameServerAllocation of fleet %q", ga, f.Metadata.Name)
	}
}

// The binary built as the Dockerfile builds it is static, and runs with
// the Fleet's arguments: it finds the sidecar (a stub here) through
// AGONES_SDK_HTTP_PORT, as in a GameServer's pod, gets Ready, sends
// Health, and stops cleanly on SIGTERM.
func TestFleetArgsRunStaticBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rtype-server")
	build := exec.Command("go", "build", "-o", bin, "../cmd/rtype-server")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (%v): it would not run on a static image", p.Type)
		}
	}
	ef.Close()

	st := agonesstub.New(t)
	_, port, _ := strings.Cut(st.Addr(), ":")
	args := slices.Clone(readFleet(t).Spec.Template.Spec.Template.Spec.Containers[0].Args)
	args[slices.Index(args, "-listen")+1] = "127.0.0.1:0"
	args[slices.Index(args, "-db")+1] = filepath.Join(t.TempDir(), "scores.db")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DISPLAY=", "AGONES_SDK_HTTP_PORT="+port)
	var out bytes.Buffer // read once the process ended
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	testutil.WaitFor(t, 20*time.Second, "Ready from the binary", func() bool { return st.Succeeded("/ready") })
	testutil.WaitFor(t, 20*time.Second, "its first Health", func() bool { return st.Succeeded("/health") })
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rtype-server %q exited with %v after SIGTERM; its log:\n%s", args, err, out.String())
	}
	if !strings.Contains(out.String(), `"msg":"server stopped"`) {
		t.Errorf("no JSON log of the stop (-log-json); its log:\n%s", out.String())
	}
}
