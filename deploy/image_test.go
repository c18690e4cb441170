package deploy

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Dockerfile.scratch has one stage, FROM scratch: the build context's
// root file system, /data owned by the unprivileged user it runs as, the
// game port, the distroless image's entry point and arguments.
func TestScratchDockerfile(t *testing.T) {
	lines := readDockerfileNamed(t, "Dockerfile.scratch")
	var got []string
	for _, l := range lines {
		got = append(got, l.instr+" "+l.args)
	}
	want := []string{
		"FROM scratch",
		"COPY rootfs/ /",
		"COPY --chown=65532:65532 data /data",
		"USER 65532:65532",
		`VOLUME ["/data"]`,
		"EXPOSE 4242/tcp 4242/udp",
		`ENTRYPOINT ["/rtype-server"]`,
		`CMD ["-listen", ":4242", "-db", "/data/scores.db", "-log-json"]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Dockerfile.scratch:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The distroless image runs the same way, as the same user (the
	// Fleet's runAsUser).
	if dockerUser(t, lines) != dockerUser(t, readDockerfile(t)) {
		t.Error("the two images run as different users")
	}
}

// imageConfig is what the test reads of podman image inspect.
type imageConfig struct {
	Os, Architecture string
	Config           struct {
		User         string
		Entrypoint   []string
		Cmd          []string
		ExposedPorts map[string]struct{}
		Volumes      map[string]struct{}
	}
}

// ./build.sh image builds the scratch image with podman (storage driver
// vfs, a storage directory of the test's own: no registry, no daemon);
// the test reads it back: its configuration (podman image inspect) and
// its layers (podman image save, untarred): the static server, which
// runs and prints the version stamped, the CA certificates, the time
// zones, the passwd and group of the user, /data owned by it. (podman
// run is not used: this machine's limits refuse crun's setrlimit.)
func TestScratchImage(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		t.Fatalf("podman is not installed (./build.sh deps installs it): %v", err)
	}
	const ver = "v9.8.7-image"
	root := t.TempDir()
	podman := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command("podman", append([]string{"--storage-driver", "vfs", "--root", filepath.Join(root, "storage"),
			"--runroot", filepath.Join(root, "run")}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
	t.Cleanup(func() {
		// Its layers' files belong to other users in a rootless podman:
		// podman removes them, then TempDir the rest.
		exec.Command("podman", "--storage-driver", "vfs", "--root", filepath.Join(root, "storage"),
			"--runroot", filepath.Join(root, "run"), "rmi", "--all", "--force").Run()
	})
	build := exec.Command("bash", "../build.sh", "image", ver)
	build.Env = append(os.Environ(), "PODMAN_ROOT="+root)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("./build.sh image: %v\n%s", err, out)
	}
	image := "rtype-server:" + ver

	var cfgs []imageConfig
	if err := json.Unmarshal(podman("image", "inspect", image), &cfgs); err != nil || len(cfgs) != 1 {
		t.Fatalf("podman image inspect: %v (%d images)", err, len(cfgs))
	}
	c := cfgs[0]
	if c.Os != "linux" || c.Config.User != "65532:65532" || !slices.Equal(c.Config.Entrypoint, []string{"/rtype-server"}) ||
		!slices.Equal(c.Config.Cmd, []string{"-listen", ":4242", "-db", "/data/scores.db", "-log-json"}) {
		t.Errorf("image config %+v", c)
	}
	for _, p := range []string{"4242/tcp", "4242/udp"} {
		if _, ok := c.Config.ExposedPorts[p]; !ok {
			t.Errorf("port %s not exposed: %v", p, c.Config.ExposedPorts)
		}
	}
	if _, ok := c.Config.Volumes["/data"]; !ok {
		t.Errorf("no /data volume: %v", c.Config.Volumes)
	}

	archive := filepath.Join(root, "image.tar")
	podman("image", "save", "--format", "docker-archive", "-o", archive, image)
	files := imageFiles(t, archive)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	t.Logf("%d entries in the image's layers", len(names))

	server, ok := files["rtype-server"]
	if !ok || server.hdr.Mode&0o111 == 0 || server.hdr.Uid != 0 {
		t.Fatalf("no executable /rtype-server owned by root in the image: %+v", server.hdr)
	}
	if d, ok := files["data/"]; !ok || d.hdr.Typeflag != tar.TypeDir || d.hdr.Uid != 65532 || d.hdr.Gid != 65532 {
		t.Errorf("/data is not a directory of 65532:65532: %+v", d.hdr)
	}
	if c := files["etc/ssl/certs/ca-certificates.crt"]; !bytes.Contains(c.data, []byte("-----BEGIN CERTIFICATE-----")) {
		t.Error("no CA certificates at /etc/ssl/certs/ca-certificates.crt")
	}
	for _, z := range []string{"usr/share/zoneinfo/UTC", "usr/share/zoneinfo/Europe/Paris", "usr/share/zoneinfo/America/New_York"} {
		f := files[z]
		for f.hdr != nil && f.hdr.Typeflag == tar.TypeSymlink { // Debian links some zones to others
			f = files[filepath.ToSlash(filepath.Join(filepath.Dir(z), f.hdr.Linkname))]
		}
		if !bytes.HasPrefix(f.data, []byte("TZif")) {
			t.Errorf("no time zone file /%s", z)
		}
	}
	if !regexp.MustCompile(`(?m)^rtype:x:65532:65532:`).Match(files["etc/passwd"].data) ||
		!regexp.MustCompile(`(?m)^rtype:x:65532:`).Match(files["etc/group"].data) {
		t.Errorf("/etc/passwd and /etc/group lack the user 65532:\n%s%s", files["etc/passwd"].data, files["etc/group"].data)
	}

	// The server read out of the image: static, and stamped.
	bin := filepath.Join(root, "rtype-server")
	if err := os.WriteFile(bin, server.data, 0o755); err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the image's server has an interpreter: it would not run from scratch")
		}
	}
	ef.Close()
	out, err := exec.Command(bin, "-version").Output()
	if got := string(out); err != nil || got != "rtype-server "+ver+"\n" {
		t.Errorf("the image's rtype-server -version: %q (%v)", got, err)
	}
}

// layerFile is a file of an image: its header and content.
type layerFile struct {
	hdr  *tar.Header
	data []byte
}

// imageFiles reads a docker-archive (podman image save): the files of its
// layers, applied in order, by path without the leading slash
// (directories with a trailing one).
func imageFiles(t *testing.T, archive string) map[string]layerFile {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	members := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			members[h.Name], _ = io.ReadAll(tr)
		}
	}
	var manifest []struct{ Layers []string }
	if err := json.Unmarshal(members["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v", err)
	}
	out := map[string]layerFile{}
	for _, l := range manifest[0].Layers {
		data, ok := members[l]
		if !ok {
			t.Fatalf("layer %s not in the archive", l)
		}
		lr := tar.NewReader(bytes.NewReader(data))
		for {
			h, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("layer %s: %v", l, err)
			}
			name := strings.TrimPrefix(h.Name, "./")
			name = strings.TrimPrefix(name, "/")
			if h.Typeflag == tar.TypeDir && !strings.HasSuffix(name, "/") {
				name += "/"
			}
			body, _ := io.ReadAll(lr)
			out[name] = layerFile{hdr: h, data: body}
		}
	}
	return out
}
