package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// overrideFile is the file terraform-override writes. Terraform merges a
// file whose name ends in _override.tf into the blocks of the same name in
// the other files of its directory, attribute by attribute, so the
// configuration's own files stay as they are.
const overrideFile = "lbhealth_override.tf"

// overrideHeader starts every file terraform-override writes; it tells one
// of ours from a user's file of the same name.
const overrideHeader = "# Written by lbhealth-emulator terraform-override"

// googleProviders are the providers the override points at the emulator.
var googleProviders = []string{"google", "google-beta"}

// terraformOverride is the terraform-override command: it writes, into a
// root module, the Terraform override file that points hashicorp/google and
// hashicorp/google-beta at the emulator, so that a configuration written
// for Google applies here with no edit to its files.
func terraformOverride(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("lbhealth-emulator terraform-override", flag.ContinueOnError)
	dir := flags.String("dir", ".", "the root module: the directory terraform runs in")
	endpoint := flags.String("endpoint", env("LBHEALTH_EMULATOR_HOST", emulator.DefaultListen),
		"the emulator: host:port or its URL (env LBHEALTH_EMULATOR_HOST)")
	project := flags.String("project", "", "a project every provider block uses instead of its own (default: each keeps its own)")
	remove := flags.Bool("remove", false, "remove the file this command wrote, and point the configuration at Google again")
	if err := parse(flags, args, stdout, "terraform-override: writes "+overrideFile+" into --dir, pointing every google "+
		"and google-beta provider configuration of that root module (the default one and each alias) at the emulator: "+
		"its Compute endpoint, a placeholder access token (or, when LBHEALTH_TOKEN is set, the token from "+
		"GOOGLE_OAUTH_ACCESS_TOKEN) and no credentials file. The configuration's own files are not changed; "+
		"remove the file (--remove) to apply to Google again."); err != nil {
		return err
	}
	path := filepath.Join(*dir, overrideFile)
	if err := refuseForeign(path); err != nil {
		return err
	}
	if *remove {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		fmt.Fprintf(stdout, "removed %s\n", path)
		return nil
	}
	use, err := readProviderUse(*dir)
	if err != nil {
		return err
	}
	token := os.Getenv("LBHEALTH_TOKEN") != ""
	text := overrideText(use, client.BaseURL(*endpoint), *project, token)
	if err := os.WriteFile(path, text, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %s at %s\n", path, strings.Join(use.configurations(), ", "), client.BaseURL(*endpoint))
	for _, m := range use.unread {
		fmt.Fprintf(stderr, "note: module %s is not installed, so its providers are not known: run terraform init, then this command again\n", m)
	}
	if token {
		fmt.Fprintln(stderr, "note: the emulator wants a token: where terraform runs, export GOOGLE_OAUTH_ACCESS_TOKEN=\"$LBHEALTH_TOKEN\"")
	}
	return nil
}

// refuseForeign refuses to overwrite or remove a file of that name that
// terraform-override did not write.
func refuseForeign(path string) error {
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !bytes.HasPrefix(old, []byte(overrideHeader)):
		return fmt.Errorf("%s exists and was not written by this command: move it away first", path)
	}
	return nil
}

// providerUse is what a root module configures and uses of the google
// providers.
type providerUse struct {
	aliases map[string][]string // provider name → the aliases the root module configures
	beta    bool                // google-beta is used somewhere in the module tree
	unread  []string            // module calls whose source is not on disk yet
}

// configurations names each provider configuration the override writes.
func (u providerUse) configurations() []string {
	var out []string
	for _, p := range googleProviders {
		if p == "google-beta" && !u.beta {
			continue
		}
		out = append(out, p)
		for _, a := range u.aliases[p] {
			out = append(out, p+"."+a)
		}
	}
	return out
}

// overrideText is the override file: a block for the default configuration
// of google (and of google-beta, when the configuration uses it) and one
// for each alias. Terraform takes an override of a default configuration
// that the configuration does not write (an absent block is an empty one),
// but an aliased block must exist to be overridden, so only the aliases the
// root module has get one.
func overrideText(use providerUse, base, project string, token bool) []byte {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte(overrideHeader + ": points hashicorp/google\n" +
		"# and google-beta at the emulator at " + base + ".\n" +
		"# Remove this file (lbhealth-emulator terraform-override --remove) to apply\n# to Google again.\n")}})
	for _, p := range googleProviders {
		if p == "google-beta" && !use.beta {
			continue
		}
		for _, alias := range append([]string{""}, use.aliases[p]...) {
			body.AppendNewline()
			b := body.AppendNewBlock("provider", []string{p}).Body()
			if alias != "" {
				b.SetAttributeValue("alias", cty.StringVal(alias))
			}
			if project != "" {
				b.SetAttributeValue("project", cty.StringVal(project))
			}
			// With a token, the provider reads GOOGLE_OAUTH_ACCESS_TOKEN
			// when its configuration has no credentials: the token is
			// never written into the file.
			if token {
				b.SetAttributeValue("access_token", cty.NullVal(cty.String))
			} else {
				b.SetAttributeValue("access_token", cty.StringVal("emulator"))
			}
			b.SetAttributeValue("credentials", cty.NullVal(cty.String))
			b.SetAttributeValue("impersonate_service_account", cty.NullVal(cty.String))
			// Not googleapis.com, so that the provider does not ask
			// Google about the token when it starts.
			b.SetAttributeValue("universe_domain", cty.StringVal("emulator.invalid"))
			for _, ep := range api.ProviderEndpoints {
				b.SetAttributeValue(ep.Attribute, cty.StringVal(base+ep.Path))
			}
		}
	}
	return hclwrite.Format(f.Bytes())
}

// moduleSchema is the part of a Terraform file the override reads.
var moduleSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "terraform"},
	{Type: "provider", LabelNames: []string{"name"}},
	{Type: "resource", LabelNames: []string{"type", "name"}},
	{Type: "data", LabelNames: []string{"type", "name"}},
	{Type: "module", LabelNames: []string{"name"}},
}}

// readProviderUse reads the root module in dir, and the modules it calls:
// those terraform init installed (.terraform/modules/modules.json), else
// those on local paths.
func readProviderUse(dir string) (providerUse, error) {
	use := providerUse{aliases: map[string][]string{}}
	root, err := readModule(dir)
	if err != nil {
		return use, err
	}
	if len(root.files) == 0 {
		return use, fmt.Errorf("--dir %q has no Terraform files (*.tf, *.tf.json): give the root module terraform runs in", dir)
	}
	for _, p := range googleProviders {
		use.aliases[p] = root.aliases[p]
	}
	use.beta = root.beta
	installed, err := installedModules(dir)
	if err != nil {
		return use, err
	}
	seen := map[string]bool{filepath.Clean(dir): true}
	queue := []module{root}
	for len(queue) > 0 && !use.beta {
		m := queue[0]
		queue = queue[1:]
		for _, call := range m.calls {
			var path string
			switch {
			case installed != nil:
				path = installed[call.key]
			case strings.HasPrefix(call.source, "./") || strings.HasPrefix(call.source, "../"):
				path = filepath.Join(m.dir, call.source)
			}
			if path == "" {
				use.unread = append(use.unread, fmt.Sprintf("%q (%s)", call.key, call.source))
				continue
			}
			if seen[filepath.Clean(path)] {
				continue
			}
			seen[filepath.Clean(path)] = true
			child, err := readModule(path)
			if err != nil {
				return use, err
			}
			child.prefix(call.key)
			use.beta = use.beta || child.beta
			queue = append(queue, child)
		}
	}
	if use.beta {
		use.unread = nil // nothing more to learn from them
	}
	return use, nil
}

// installedModules reads where terraform init put each module call
// (by its key, "lb" or "lb.backend"), or nil before init.
func installedModules(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".terraform", "modules", "modules.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var manifest struct {
		Modules []struct{ Key, Dir string }
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		return nil, fmt.Errorf("%s: %w (run terraform init again)", filepath.Join(dir, ".terraform", "modules", "modules.json"), err)
	}
	out := map[string]string{}
	for _, m := range manifest.Modules {
		out[m.Key] = filepath.Join(dir, m.Dir)
	}
	return out, nil
}

// module is what the override needs of one module's files.
type module struct {
	dir     string
	files   []string
	aliases map[string][]string // provider name → its aliased configurations
	beta    bool                // it names google-beta
	calls   []moduleCall
}

type moduleCall struct{ key, source string }

func (m *module) prefix(key string) {
	for i := range m.calls {
		m.calls[i].key = key + "." + m.calls[i].key
	}
}

// readModule parses the Terraform files of one module directory (not our
// own override file).
func readModule(dir string) (module, error) {
	m := module{dir: dir, aliases: map[string][]string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return m, err
	}
	parser := hclparse.NewParser()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == overrideFile || !(strings.HasSuffix(name, ".tf") || strings.HasSuffix(name, ".tf.json")) {
			continue
		}
		path := filepath.Join(dir, name)
		var f *hcl.File
		var diags hcl.Diagnostics
		if strings.HasSuffix(name, ".json") {
			f, diags = parser.ParseJSONFile(path)
		} else {
			f, diags = parser.ParseHCLFile(path)
		}
		if diags.HasErrors() {
			return m, fmt.Errorf("reading the configuration: %s", diags.Error())
		}
		m.files = append(m.files, path)
		content, _, diags := f.Body.PartialContent(moduleSchema)
		if diags.HasErrors() {
			return m, fmt.Errorf("reading the configuration: %s", diags.Error())
		}
		for _, b := range content.Blocks {
			m.read(b)
		}
	}
	for p := range m.aliases {
		sort.Strings(m.aliases[p])
		m.aliases[p] = slices.Compact(m.aliases[p])
	}
	return m, nil
}

// read notes what one top-level block says of the google providers.
func (m *module) read(b *hcl.Block) {
	attrs, _ := b.Body.JustAttributes() // blocks inside are not read
	switch b.Type {
	case "provider":
		name := b.Labels[0]
		m.beta = m.beta || name == "google-beta"
		if a, ok := attrs["alias"]; ok {
			if v, diags := a.Expr.Value(nil); !diags.HasErrors() && v.Type() == cty.String && !v.IsNull() {
				m.aliases[name] = append(m.aliases[name], v.AsString())
			}
		}
	case "terraform":
		content, _, _ := b.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "required_providers"}}})
		for _, rp := range content.Blocks {
			required, _ := rp.Body.JustAttributes()
			for name, a := range required {
				v, _ := a.Expr.Value(nil)
				source := ""
				if v.IsKnown() && !v.IsNull() && (v.Type().IsObjectType() && v.Type().HasAttribute("source")) {
					if s := v.GetAttr("source"); s.Type() == cty.String && !s.IsNull() {
						source = s.AsString()
					}
				}
				m.beta = m.beta || name == "google-beta" || strings.HasSuffix(source, "/google-beta")
			}
		}
	case "resource", "data":
		if a, ok := attrs["provider"]; ok {
			m.beta = m.beta || rootName(a.Expr) == "google-beta"
		}
	case "module":
		call := moduleCall{key: b.Labels[0]}
		if a, ok := attrs["source"]; ok {
			if v, diags := a.Expr.Value(nil); !diags.HasErrors() && v.Type() == cty.String && !v.IsNull() {
				call.source = v.AsString()
			}
		}
		m.calls = append(m.calls, call)
		if a, ok := attrs["providers"]; ok {
			pairs, _ := hcl.ExprMap(a.Expr)
			for _, kv := range pairs {
				m.beta = m.beta || rootName(kv.Value) == "google-beta"
			}
		}
	}
}

// rootName is the first name of a reference such as google-beta.west, or ""
// for another expression.
func rootName(e hcl.Expression) string {
	t, diags := hcl.AbsTraversalForExpr(e)
	if diags.HasErrors() {
		return ""
	}
	return t.RootName()
}
