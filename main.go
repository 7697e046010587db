// Command terraform-provider-lbhealth is the Terraform provider of lbhealth:
// load-balancer health checks, their targets and their aggregated health,
// served by the lbhealth emulator.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/buildinfo"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/provider"
)

// Format the examples and regenerate docs/ from the schema, examples/ and
// templates/ (make generate). tfplugindocs runs the terraform on PATH.
//go:generate terraform fmt -recursive ./examples/
//go:generate go tool tfplugindocs generate --provider-name lbhealth
//go:generate sh -c "go run ./emulator/cmd/lbhealth-emulator help --markdown | go run ./scripts/emulatordocs docs/guides/emulator.md"

// version is set by the release build with -ldflags "-X main.version=...".
var version = "dev"

const usage = `usage:
  terraform-provider-lbhealth            serve the provider to Terraform (Terraform runs it: see README.md)
  terraform-provider-lbhealth --debug    serve it for a debugger: Terraform attaches through TF_REATTACH_PROVIDERS
  terraform-provider-lbhealth version    print the version
`

func main() {
	var debug, showVersion bool
	fs := flag.NewFlagSet("terraform-provider-lbhealth", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	fs.BoolVar(&showVersion, "version", false, "print the version and exit")
	err := fs.Parse(os.Args[1:])
	switch {
	case err == flag.ErrHelp:
		fmt.Print(usage)
		return
	case err != nil:
		fmt.Fprintf(os.Stderr, "terraform-provider-lbhealth: %v\n\n%s", err, usage)
		os.Exit(2)
	case showVersion || fs.Arg(0) == "version" && fs.NArg() == 1:
		fmt.Println(buildinfo.String("terraform-provider-lbhealth", version))
		return
	case fs.NArg() > 0:
		fmt.Fprintf(os.Stderr, "terraform-provider-lbhealth: unexpected argument %q\n\n%s", fs.Arg(0), usage)
		os.Exit(2)
	}

	provider.LimitFrameworkTrace()
	err = providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
