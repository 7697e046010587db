// Command lbhealth-emulator serves the lbhealth API: health checks and the
// resources around them, stored in an embedded database and probed for real.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agext/levenshtein"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/dataplane"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/firewall"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/plan"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/buildinfo"
)

// version is set by the release build with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	var usage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &usage):
		fmt.Fprintf(os.Stderr, "lbhealth-emulator: %v\n\n%s\n", err, usage.usage())
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "lbhealth-emulator:", err)
		os.Exit(1)
	}
}

// command is one of the emulator's commands: its name (serve is also the
// command of no name), its arguments, what it does, and what runs it.
type command struct {
	name, args, summary string
	run                 func(args []string, stdout, stderr io.Writer) error
}

// commands are the emulator's commands, in the order help lists them:
// the one table that run, help, the synopsis and the emulator guide
// (help --markdown) read.
var commands []command

func init() {
	commands = []command{
		{"serve", "[flags]", "serve the API on its database and probe what it stores", serve},
		{"targets", "[flags]", "start sample targets to probe, and a control API to break and recover them", runTargets},
		{"healthcheck", "[flags]", "exit 0 if the emulator at --listen answers /healthz (a container's health check)",
			func(args []string, stdout, _ io.Writer) error { return healthcheck(args, stdout) }},
		{"wait", "[flags]", "wait until a backend service, target pool or composite check is healthy (exit 0) or time runs out",
			func(args []string, stdout, _ io.Writer) error { return wait(args, stdout) }},
		{"timeline", "[flags]", "print every change of state recorded (endpoints, sources, composites, instances)",
			func(args []string, stdout, _ io.Writer) error { return timelineCommand(args, stdout) }},
		{"scenario", "[flags]", "run a chaos scenario (break, slow, heal instances, zones, targets on a schedule)",
			func(args []string, stdout, _ io.Writer) error { return scenarioCommand(args, stdout) }},
		{"terraform-override", "[flags]", "point a hashicorp/google configuration at the emulator, its files unchanged", terraformOverride},
		{"version", "", "print the version", versionCommand},
		{"help", "[command]", "print this help, or a command's", help},
	}
}

// lookupCommand is the command of name, and whether there is one.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// line is c's usage line: "lbhealth-emulator wait [flags]" (serve's is the
// command of no name).
func (c command) line() string {
	words := []string{"lbhealth-emulator"}
	if c.name != "serve" {
		words = append(words, c.name)
	}
	if c.args != "" {
		words = append(words, c.args)
	}
	return strings.Join(words, " ")
}

// synopsis is the commands, as help and a usage error show them.
func synopsis() string {
	var b strings.Builder
	b.WriteString("usage:")
	for _, c := range commands {
		if line := c.line(); len(line) <= 34 {
			fmt.Fprintf(&b, "\n  %-34s  %s", line, c.summary)
		} else {
			fmt.Fprintf(&b, "\n  %s\n  %-34s  %s", line, "", c.summary)
		}
	}
	return b.String()
}

// usageError is a command line the emulator cannot read: it exits 2 and
// shows how the command is used. command is the one whose line it was
// ("" when no command could be told).
type usageError struct{ command, msg string }

func (e usageError) Error() string { return e.msg }

// usage is what to show with the error: the command's usage line and
// where its flags are, or every command.
func (e usageError) usage() string {
	if c, ok := lookupCommand(e.command); ok {
		return fmt.Sprintf("usage: %s\nRun 'lbhealth-emulator help %s' for its flags.", c.line(), c.name)
	}
	return synopsis() + "\nRun 'lbhealth-emulator help COMMAND' for a command's flags."
}

// run runs the command args name (serve when the first is a flag or there
// is none). Help goes to stdout, and is not an error.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return serve(args, stdout, stderr)
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		return usageError{"", fmt.Sprintf("unknown command %q%s", args[0], didYouMean(args[0], commandNames()))}
	}
	return c.run(args[1:], stdout, stderr)
}

func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

func versionCommand(args []string, stdout, _ io.Writer) error {
	if len(args) > 0 && args[0] == "--help" {
		fmt.Fprintln(stdout, "usage: lbhealth-emulator version\n\nPrints the version, the commit it was built from and the Go that built it.")
		return nil
	}
	if len(args) > 0 {
		return usageError{"version", fmt.Sprintf("version takes no arguments, got %q", args[0])}
	}
	fmt.Fprintln(stdout, buildinfo.String("lbhealth-emulator", version))
	return nil
}

// help prints the synopsis and serve's flags, or a command's help;
// --markdown prints every command's flags for the emulator guide.
func help(args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		return serve([]string{"--help"}, stdout, stderr)
	case args[0] == "--markdown" && len(args) == 1:
		return markdown(stdout)
	case args[0] == "help" || args[0] == "--help":
		fmt.Fprintln(stdout, synopsis())
		return nil
	}
	c, ok := lookupCommand(args[0])
	if !ok || len(args) > 1 {
		return usageError{"help", fmt.Sprintf("help: unknown command %q%s", strings.Join(args, " "), didYouMean(args[0], commandNames()))}
	}
	return c.run([]string{"--help"}, stdout, stderr)
}

// parse reads args into fs. --help prints help (the synopsis, then fs's
// flags) to stdout and gives flag.ErrHelp; a flag fs does not have, a bad
// value or a stray argument is a usageError. While the guide's flags are
// collected (collecting), it only hands fs over and gives flag.ErrHelp.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer, intro string) error {
	if collecting != nil {
		collecting(fs, intro)
		return flag.ErrHelp
	}
	fs.SetOutput(io.Discard)
	name := strings.TrimPrefix(strings.TrimPrefix(fs.Name(), "lbhealth-emulator"), " ")
	if name == "" {
		name = "serve"
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "%s\n\n%s\n\nflags:\n", synopsis(), wrap(intro, "", 80))
		printFlags(stdout, fs)
		return err
	}
	if err != nil {
		return usageError{name, flagError(fs, err)}
	}
	if fs.NArg() > 0 {
		return usageError{name, fmt.Sprintf("unexpected argument %q: %s takes flags only", fs.Arg(0), fs.Name())}
	}
	return nil
}

// undefinedFlag is how the flag package says a flag is not one.
var undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)

// didYouMean is ", did you mean X?" for the one of names closest to
// typed, when one is close enough to be a typo; else "".
func didYouMean(typed string, names []string) string {
	best, bestDist := "", 3 // at most two edits
	for _, n := range names {
		if d := levenshtein.Distance(typed, n, nil); d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// badValue is how the flag package says a value did not parse.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): `)

// flagError says what is wrong with a flag as the rest of the command
// line's errors do: the flag, the value and what it wants.
func flagError(fs *flag.FlagSet, err error) string {
	if m := undefinedFlag.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		suggestion := didYouMean(m[1], names)
		if suggestion != "" {
			suggestion = strings.Replace(suggestion, `"`, `"--`, 1)
		}
		return err.Error() + suggestion
	}
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	want := "another value"
	if f := fs.Lookup(m[2]); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case time.Duration:
				want = "a duration, such as 30s, 10m or 1h"
			case int, int64, uint, uint64:
				want = "a whole number"
			case float64:
				want = "a number"
			case bool:
				want = "true or false"
			}
		}
	}
	return fmt.Sprintf("--%s %q: want %s", m[2], m[1], want)
}

// printFlags lists fs's flags as users type them (--name), each with its
// help, which names its environment variable, and its default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintln(w, line)
		fmt.Fprintln(w, wrap(usage, "      ", 80))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(w, "      (default %s)\n", f.DefValue)
		}
	})
}

// wrap breaks s into lines of at most width, each starting with indent;
// "(env NAME)" stays on one line.
func wrap(s, indent string, width int) string {
	var words []string
	for _, w := range strings.Fields(s) {
		if n := len(words); n > 0 && words[n-1] == "(env" {
			words[n-1] += " " + w
			continue
		}
		words = append(words, w)
	}
	var lines []string
	line := indent
	for _, word := range words {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

// newLogger is the logger --log-format and --log-level ask for, on w.
func newLogger(format, level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// healthcheck asks the emulator listening at --listen for /healthz and
// fails unless it answers 200: the health check of a container image,
// which has no shell or curl to ask with.
func healthcheck(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("lbhealth-emulator healthcheck", flag.ContinueOnError)
	listen := fs.String("listen", env("LBHEALTH_LISTEN", emulator.DefaultListen),
		"host:port the emulator serves on; an unspecified host (0.0.0.0, [::]) is asked on loopback (env LBHEALTH_LISTEN)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := parse(fs, args, stdout, "healthcheck: exits 0 if the emulator answers GET /healthz with 200, else 1 saying why."); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("--listen %q: want host:port", *listen)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	client := &http.Client{Timeout: *timeout}
	resp, err := client.Get(url)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s answered %s", url, resp.Status)
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}

// DefaultWorkloadBoot is how long an instance boots by default: long
// enough that a check's first probes fail, as a new VM's do.
const DefaultWorkloadBoot = 2 * time.Second

// serve is the emulator itself: the API on its database, and the probes.
func serve(args []string, stdout, stderr io.Writer) error {
	health.TuneGC()
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
		"most API connections open at once; when all are taken, a new one replaces the one idle longest, and waits to be accepted only "+
			"while all are busy with a request (env LBHEALTH_MAX_CONNECTIONS)")
	opsTTL := fs.Duration("operations-ttl", envDuration("LBHEALTH_OPERATIONS_TTL", httpapi.DefaultOperationsTTL),
		"how long operations are kept, e.g. 1h or 10m (env LBHEALTH_OPERATIONS_TTL)")
	certProvisioning := fs.Duration("certificate-provisioning", envDuration("LBHEALTH_CERTIFICATE_PROVISIONING", core.DefaultCertificateProvisioning),
		"how long a managed SSL certificate stays PROVISIONING before it is ACTIVE (env LBHEALTH_CERTIFICATE_PROVISIONING)")
	opsMax := fs.Int("operations-max", envInt("LBHEALTH_OPERATIONS_MAX", httpapi.DefaultOperationsMax),
		"how many operations are kept at most, the oldest dropped first (env LBHEALTH_OPERATIONS_MAX)")
	strictFields := fs.Bool("strict-fields", envBool("LBHEALTH_STRICT_FIELDS"),
		"refuse request bodies with fields the Compute API does not define (400 naming them), to catch typos; "+
			"by default they are ignored, as the API ignores them, and logged once (env LBHEALTH_STRICT_FIELDS)")
	noDefaultNetwork := fs.Bool("no-default-network", envBool("LBHEALTH_NO_DEFAULT_NETWORK"),
		"do not give projects the cloud's default network (default, auto mode, its subnetworks and its default-allow-* "+
			"firewall rules) the first time they are used (env LBHEALTH_NO_DEFAULT_NETWORK)")
	managedRange := fs.String("managed-instance-range", env("LBHEALTH_MANAGED_INSTANCE_RANGE", core.DefaultManagedInstanceRange.String()),
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
	dataPlane := fs.String("data-plane", env("LBHEALTH_DATA_PLANE", "on"),
		"on or off: carry traffic, a listener per forwarding rule whose address is on loopback (after --probe-map) that sends "+
			"to HEALTHY backends as its load balancer does (env LBHEALTH_DATA_PLANE)")
	backendHeader := fs.String("data-plane-backend-header", env("LBHEALTH_DATA_PLANE_BACKEND_HEADER", "on"),
		"on or off: name the backend that served each answer of the data plane in an X-Lbhealth-Backend header "+
			"(env LBHEALTH_DATA_PLANE_BACKEND_HEADER)")
	planeConns := fs.Int("data-plane-max-connections", envInt("LBHEALTH_DATA_PLANE_MAX_CONNECTIONS", dataplane.DefaultMaxConnections()),
		"most client connections the data plane's listeners hold open together; more wait to be accepted, so that the API keeps "+
			"descriptors of its own (default: half of what the process may open less 4,096, at most 10,000) (env LBHEALTH_DATA_PLANE_MAX_CONNECTIONS)")
	listenerConns := fs.Int("data-plane-max-connections-per-listener", envInt("LBHEALTH_DATA_PLANE_MAX_CONNECTIONS_PER_LISTENER", dataplane.DefaultMaxConnectionsPerListener),
		"most client connections one forwarding rule's listener holds open; more wait to be accepted (env LBHEALTH_DATA_PLANE_MAX_CONNECTIONS_PER_LISTENER)")
	bucketDir := fs.String("bucket-dir", env("LBHEALTH_BUCKET_DIR", ""),
		"a directory with a directory per backend bucket, named as its bucketName, whose files the data plane serves as the "+
			"bucket's objects; without it every object is missing (404) (env LBHEALTH_BUCKET_DIR)")
	selfLinkRoot := fs.String("self-link-root", env("LBHEALTH_SELF_LINK_ROOT", emulator.GoogleSelfLinkRoot),
		"how the self links and references the API answers with begin, as the Compute API's own (terraform-provider-google "+
			"expects them so); \"emulator\" for the emulator's own URL. Every form is accepted on input (env LBHEALTH_SELF_LINK_ROOT)")
	workloads := fs.String("workloads", env("LBHEALTH_WORKLOADS", "on"),
		"on or off: run a simulated workload at each instance the emulator gave a loopback address (managed groups' instances, "+
			"instances outside a subnetwork), answering on every port its health checks probe and its load balancers send to, "+
			"as the web server its startup script would start; an instance's metadata "+api.MetadataWorkload+"=off leaves it alone (env LBHEALTH_WORKLOADS)")
	workloadBoot := fs.Duration("workload-boot", envDuration("LBHEALTH_WORKLOAD_BOOT", DefaultWorkloadBoot),
		"how long an instance boots before its workload answers, unless its metadata "+api.MetadataBootSeconds+" says otherwise "+
			"(env LBHEALTH_WORKLOAD_BOOT)")
	workloadCommands := fs.Bool("workload-commands", envBool("LBHEALTH_WORKLOAD_COMMANDS"),
		"run an instance's metadata "+api.MetadataWorkloadCommand+" (a shell command line, told its address and ports in "+
			"LBHEALTH_ADDRESS, LBHEALTH_PORT and LBHEALTH_PORTS, with PATH and HOME and nothing else of this environment) as its workload "+
			"instead of the simulated servers. Whoever can call the API can then run commands on this machine: the emulator refuses to "+
			"start with it beyond loopback unless --token is set (env LBHEALTH_WORKLOAD_COMMANDS)")
	timeScale := fs.Float64("time-scale", envFloat("LBHEALTH_TIME_SCALE", 1),
		"run the emulator's own times this many times faster, for tests (1 to 100): health checks' intervals and timeouts "+
			"(the probes stay real), autohealing's delays, certificate provisioning, instance boot, scenario steps; every API "+
			"answer says so in "+httpapi.TimeScaleHeader+", and the status page too (env LBHEALTH_TIME_SCALE)")
	logLevel := fs.String("log-level", env("LBHEALTH_LOG_LEVEL", "info"), "debug, info, warn or error (env LBHEALTH_LOG_LEVEL)")
	logFormat := fs.String("log-format", env("LBHEALTH_LOG_FORMAT", "text"),
		"text (key=value) or json (one object per line, for log collectors); the log goes to stderr (env LBHEALTH_LOG_FORMAT)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := parse(fs, args, stdout, "Serves the Compute API's load-balancing resources on an embedded database and probes "+
		"their endpoints for real. Each flag can be set instead by the environment variable its help names; a flag wins over it."); err != nil {
		return err
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildinfo.String("lbhealth-emulator", version))
		return nil
	}
	if *token == "" {
		*token = os.Getenv("LBHEALTH_TOKEN")
	}
	log, err := newLogger(*logFormat, *logLevel, stderr)
	if err != nil {
		return err
	}
	networks, err := parsePrefixes(*probeNets)
	if err != nil {
		return fmt.Errorf("--probe-networks: %w", err)
	}
	pm, err := plan.ParseProbeMap(*probeMap)
	if err != nil {
		return fmt.Errorf("--probe-map: %w", err)
	}
	plane, err := onOff("--data-plane", *dataPlane)
	if err != nil {
		return err
	}
	header, err := onOff("--data-plane-backend-header", *backendHeader)
	if err != nil {
		return err
	}
	runWorkloads, err := onOff("--workloads", *workloads)
	if err != nil {
		return err
	}
	managed, err := netip.ParsePrefix(*managedRange)
	if err != nil {
		return fmt.Errorf("--managed-instance-range %q: want a range such as 127.1.0.0/16", *managedRange)
	}
	cfg := emulator.Config{
		Listen: *listen, DataDir: *dataDir, InMemory: *inMemory, Logger: log, Probers: *probers, ProbeNetworks: networks,
		AllowedHosts: splitList(*allowedHosts), Token: *token, Limits: emulator.Limits{MaxConnections: *maxConns},
		OperationsTTL: *opsTTL, OperationsMax: *opsMax, CertificateProvisioning: *certProvisioning, StrictFields: *strictFields, NoDefaultNetwork: *noDefaultNetwork,
		ManagedInstanceRange: managed, ProbeMap: pm, NodeID: *nodeID, NodeRole: *nodeRole,
		Firewalls: plan.FirewallMode(*firewalls), Universe: firewall.Universe(*universe), ProbeMultiplicity: *multiplicity,
		DataPlane: plane, NoBackendHeader: !header, DataPlaneMaxConnections: *planeConns, DataPlaneMaxConnectionsPerListener: *listenerConns,
		BucketDir: *bucketDir,
		Workloads: runWorkloads, WorkloadBoot: *workloadBoot, TimeScale: *timeScale, WorkloadCommands: *workloadCommands, SelfLinkRoot: *selfLinkRoot,
	}
	if *selfLinkRoot == "emulator" {
		cfg.SelfLinkRoot = ""
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
	fmt.Fprintf(stdout, "lbhealth-emulator serving on %s\n", e.URL())
	if e.DataPath() != "" {
		fmt.Fprintf(stdout, "data: %s\n", e.DataPath())
	} else {
		fmt.Fprintln(stdout, "data: in memory (lost on exit)")
	}
	fmt.Fprintf(stdout, "point the provider at it: export LBHEALTH_EMULATOR_HOST=%s\n", e.Addr())
	if *token != "" {
		fmt.Fprintln(stdout, "API calls need the token (Authorization: Bearer): give the provider the same one in LBHEALTH_TOKEN or its token attribute")
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

// onOff reads a flag whose values are on and off.
func onOff(flag, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("%s %q: want on or off", flag, v)
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

func envFloat(name string, def float64) float64 {
	if f, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return f
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
