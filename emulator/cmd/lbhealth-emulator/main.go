// Command lbhealth-emulator serves the lbhealth API: health checks and the
// resources around them, stored in an embedded database and probed for real.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/firewall"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/plan"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "lbhealth-emulator:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "targets" {
		return runTargets(args[1:])
	}
	fs := flag.NewFlagSet("lbhealth-emulator", flag.ContinueOnError)
	listen := fs.String("listen", env("LBHEALTH_LISTEN", emulator.DefaultListen), "host:port to serve on (env LBHEALTH_LISTEN)")
	dataDir := fs.String("data-dir", env("LBHEALTH_DATA_DIR", defaultDataDir()), "directory of the database (env LBHEALTH_DATA_DIR)")
	inMemory := fs.Bool("in-memory", envBool("LBHEALTH_IN_MEMORY"), "keep nothing on disk: everything is lost on exit (env LBHEALTH_IN_MEMORY)")
	probers := fs.Int("probers", envInt("LBHEALTH_PROBERS", 1), "independent probers per endpoint: each probes every interval (env LBHEALTH_PROBERS)")
	probeNets := fs.String("probe-networks", env("LBHEALTH_PROBE_NETWORKS", prefixList(emulator.DefaultProbeNetworks)),
		"comma-separated networks whose addresses may be probed; others are reported, not probed (env LBHEALTH_PROBE_NETWORKS)")
	probeMap := fs.String("probe-map", env("LBHEALTH_PROBE_MAP", ""),
		"comma-separated FROM=TO prefix pairs: an endpoint whose address is in FROM is probed at the same place in TO, so that a "+
			"real configuration's private addresses reach local servers, e.g. 10.0.0.0/8=127.0.0.0/8 probes 10.128.0.2 at 127.128.0.2 "+
			"(env LBHEALTH_PROBE_MAP)")
	allowedHosts := fs.String("allowed-hosts", env("LBHEALTH_ALLOWED_HOSTS", ""),
		"comma-separated host names the API answers to besides IP addresses and localhost, such as a name that resolves to this machine; "+
			"other names in the Host header are refused, so that web pages cannot reach the API by DNS rebinding (env LBHEALTH_ALLOWED_HOSTS)")
	// The token's default is not shown: -h must never print a secret.
	token := fs.String("token", "",
		"require \"Authorization: Bearer <token>\" on every API call; /healthz, /metrics and the status page stay open. "+
			"Prefer the environment variable: a flag shows in the process list (env LBHEALTH_TOKEN)")
	maxConns := fs.Int("max-connections", envInt("LBHEALTH_MAX_CONNECTIONS", emulator.DefaultLimits.MaxConnections),
		"most API connections open at once; more wait to be accepted (env LBHEALTH_MAX_CONNECTIONS)")
	opsTTL := fs.Duration("operations-ttl", envDuration("LBHEALTH_OPERATIONS_TTL", httpapi.DefaultOperationsTTL),
		"how long operations are kept, e.g. 1h or 10m (env LBHEALTH_OPERATIONS_TTL)")
	certProvisioning := fs.Duration("certificate-provisioning", envDuration("LBHEALTH_CERTIFICATE_PROVISIONING", httpapi.DefaultCertificateProvisioning),
		"how long a managed SSL certificate stays PROVISIONING before it is ACTIVE (env LBHEALTH_CERTIFICATE_PROVISIONING)")
	opsMax := fs.Int("operations-max", envInt("LBHEALTH_OPERATIONS_MAX", httpapi.DefaultOperationsMax),
		"how many operations are kept at most, the oldest dropped first (env LBHEALTH_OPERATIONS_MAX)")
	strictFields := fs.Bool("strict-fields", envBool("LBHEALTH_STRICT_FIELDS"),
		"refuse request bodies with fields the Compute API does not define (400 naming them), to catch typos; "+
			"by default they are ignored, as the API ignores them, and logged once (env LBHEALTH_STRICT_FIELDS)")
	noDefaultNetwork := fs.Bool("no-default-network", envBool("LBHEALTH_NO_DEFAULT_NETWORK"),
		"do not give projects the cloud's default network (default, auto mode, its subnetworks and its default-allow-* "+
			"firewall rules) the first time they are used (env LBHEALTH_NO_DEFAULT_NETWORK)")
	managedRange := fs.String("managed-instance-range", env("LBHEALTH_MANAGED_INSTANCE_RANGE", httpapi.DefaultManagedInstanceRange.String()),
		"IPv4 range the instances of managed instance groups get their addresses from, whatever their subnetwork, so that "+
			"local servers bound there answer their probes (env LBHEALTH_MANAGED_INSTANCE_RANGE)")
	nodeID := fs.String("node-id", env("LBHEALTH_NODE_ID", ""),
		"this emulator's id among the nodes of a cluster, as EXPRESSION checks see it (node.id); default the host's name (env LBHEALTH_NODE_ID)")
	nodeRole := fs.String("node-role", env("LBHEALTH_NODE_ROLE", emulator.RoleMaster),
		"MASTER or BACKUP: this emulator's role, as EXPRESSION checks see it (node.role) (env LBHEALTH_NODE_ROLE)")
	firewalls := fs.String("firewalls", env("LBHEALTH_FIREWALLS", string(plan.FirewallsWarn)),
		"what a backend network's firewall rules do to probing: off (nothing), warn (getHealth and the status page say when the cloud's "+
			"probers would be blocked) or enforce (such a backend is UNHEALTHY, reason FIREWALL_BLOCKED, as in the cloud) (env LBHEALTH_FIREWALLS)")
	universe := fs.String("universe", env("LBHEALTH_UNIVERSE", string(firewall.GoogleCloud)),
		"googlecloud or s3ns: the cloud whose probers' source ranges firewall rules are checked against (env LBHEALTH_UNIVERSE)")
	multiplicity := fs.Bool("probe-multiplicity", envBool("LBHEALTH_PROBE_MULTIPLICITY"),
		"probe each backend once per interval per prober for every forwarding rule or target proxy that uses its backend service, "+
			"as the cloud does (by default once) (env LBHEALTH_PROBE_MULTIPLICITY)")
	logLevel := fs.String("log-level", env("LBHEALTH_LOG_LEVEL", "info"), "debug, info, warn or error (env LBHEALTH_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *token == "" {
		*token = os.Getenv("LBHEALTH_TOKEN")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	networks, err := parsePrefixes(*probeNets)
	if err != nil {
		return fmt.Errorf("--probe-networks: %w", err)
	}
	pm, err := plan.ParseProbeMap(*probeMap)
	if err != nil {
		return fmt.Errorf("--probe-map: %w", err)
	}
	managed, err := netip.ParsePrefix(*managedRange)
	if err != nil {
		return fmt.Errorf("--managed-instance-range %q: want a range such as 127.1.0.0/16", *managedRange)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	cfg := emulator.Config{
		Listen: *listen, DataDir: *dataDir, InMemory: *inMemory, Logger: log, Probers: *probers, ProbeNetworks: networks,
		AllowedHosts: splitList(*allowedHosts), Token: *token, Limits: emulator.Limits{MaxConnections: *maxConns},
		OperationsTTL: *opsTTL, OperationsMax: *opsMax, CertificateProvisioning: *certProvisioning, StrictFields: *strictFields, NoDefaultNetwork: *noDefaultNetwork,
		ManagedInstanceRange: managed, ProbeMap: pm, NodeID: *nodeID, NodeRole: *nodeRole,
		Firewalls: plan.FirewallMode(*firewalls), Universe: firewall.Universe(*universe), ProbeMultiplicity: *multiplicity,
	}
	// Every value the flags set is checked as given: a 0 here is the
	// user's, not an unset field.
	if err := cfg.Validate(); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := emulator.Start(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("lbhealth-emulator serving on %s\n", e.URL())
	if e.DataPath() != "" {
		fmt.Printf("data: %s\n", e.DataPath())
	} else {
		fmt.Println("data: in memory (lost on exit)")
	}
	fmt.Printf("point the provider at it: export LBHEALTH_EMULATOR_HOST=%s\n", e.Addr())
	if *token != "" {
		fmt.Println("API calls need the token (Authorization: Bearer): give the provider the same one in LBHEALTH_TOKEN or its token attribute")
	}
	<-ctx.Done()
	log.Info("shutting down")
	return e.Close()
}

// defaultDataDir is the per-user data directory: $XDG_DATA_HOME/lbhealth,
// ~/.local/share/lbhealth, or the platform's equivalent.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "lbhealth")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "lbhealth")
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "lbhealth")
	case "windows":
		if d, err := os.UserConfigDir(); err == nil {
			return filepath.Join(d, "lbhealth")
		}
	}
	return filepath.Join(home, ".local", "share", "lbhealth")
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envBool(name string) bool {
	b, _ := strconv.ParseBool(os.Getenv(name))
	return b
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// splitList reads "a, b,c" as [a b c].
func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// prefixList writes networks as --probe-networks takes them.
func prefixList(networks []netip.Prefix) string {
	parts := make([]string, len(networks))
	for i, p := range networks {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}

// parsePrefixes reads "127.0.0.0/8,::1/128"; a bare address is one host.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			addr, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or CIDR network", part)
			}
			out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR network", part)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
