package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"rtype/server/ops"
)

// tokenEnv is the environment variable that may hold the admin token.
const tokenEnv = "RTYPE_ADMIN_TOKEN"

// opsFlags are the flags of the status page and metrics.
type opsFlags struct {
	http      *string
	hosts     *string
	tokenFile *string
}

// addOpsFlags registers -http and -admin-token-file. The token is read
// from a file or the environment, never from a flag: a command line is
// visible to every user of the machine (ps, /proc/PID/cmdline).
func addOpsFlags() opsFlags {
	return opsFlags{
		http: flag.String("http", "", "HTTP address of the status page, /metrics, /healthz and /readyz, such as 127.0.0.1:8080 "+
			"(default none); the page shows the players' addresses: keep it on a private address"),
		hosts: flag.String("http-host", "", "comma-separated `HOSTS` the status page and its actions answer (Host header), "+
			"as name or name:port, such as ops.example.com; other Hosts get 421 (DNS rebinding); default: the -http address "+
			"and localhost, 127.0.0.1 and [::1] with its port; /healthz, /readyz and /metrics answer any Host"),
		tokenFile: flag.String("admin-token-file", "", "file holding the admin token of the status page's actions "+
			"(kick, ban, close, announce), at least 16 bytes; default: the environment variable "+tokenEnv+", else no admin actions"),
	}
}

// token returns the admin token: the -admin-token-file file's first line,
// else $RTYPE_ADMIN_TOKEN, else "" (no admin actions).
func (f opsFlags) token() (string, error) {
	if *f.tokenFile != "" {
		b, err := os.ReadFile(*f.tokenFile)
		if err != nil {
			return "", fmt.Errorf("-admin-token-file: %w", err)
		}
		t, _, _ := strings.Cut(string(b), "\n")
		t = strings.TrimSpace(t)
		if len(t) < ops.MinToken {
			return "", fmt.Errorf("-admin-token-file %s: the token has %d bytes: want at least %d", *f.tokenFile, len(t), ops.MinToken)
		}
		return t, nil
	}
	t := strings.TrimSpace(os.Getenv(tokenEnv))
	if t != "" && len(t) < ops.MinToken {
		return "", fmt.Errorf("$%s: the token has %d bytes: want at least %d", tokenEnv, len(t), ops.MinToken)
	}
	if t != "" && *f.http == "" {
		return "", errors.New("$" + tokenEnv + " is set but -http is not: the admin token needs the status page")
	}
	return t, nil
}

// hostList returns the names of -http-host; nil: ops' default.
func (f opsFlags) hostList() []string {
	var hosts []string
	for h := range strings.SplitSeq(*f.hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}
