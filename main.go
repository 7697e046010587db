// Command terraform-provider-lbhealth is the Terraform provider of lbhealth:
// load-balancer health checks, their targets and their aggregated health,
// served by the lbhealth emulator.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/provider"
)

// Format the examples and regenerate docs/ from the schema, examples/ and
// templates/ (make generate). tfplugindocs runs the terraform on PATH.
//go:generate terraform fmt -recursive ./examples/
//go:generate go tool tfplugindocs generate --provider-name lbhealth

// version is set by the release build with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
