package provider

import (
	"os"
	"strings"
)

// LimitFrameworkTrace keeps terraform-plugin-framework from paying for
// trace logs nobody asked for. While it plans, the framework logs a trace
// line for every element of every value (each endpoint block of a group),
// and finding the logger walks a context that grows by one layer per
// element: quadratic in the elements, most of the provider's time at
// 10,000 endpoints. The walk is skipped when the framework's level
// (TF_LOG_SDK_FRAMEWORK) is above TRACE. Terraform gives its provider
// processes its own environment, so TF_LOG (or TF_LOG_PROVIDER,
// TF_LOG_SDK) says whether trace lines are wanted; when none asks for
// them and TF_LOG_SDK_FRAMEWORK is unset, it is set to DEBUG, which keeps
// every line TF_LOG=DEBUG shows.
func LimitFrameworkTrace() {
	if level, ok := frameworkLogLevel(os.Getenv); ok {
		os.Setenv("TF_LOG_SDK_FRAMEWORK", level)
	}
}

// frameworkLogLevel is the TF_LOG_SDK_FRAMEWORK value LimitFrameworkTrace
// sets, and whether it sets one, in the environment getenv reads.
func frameworkLogLevel(getenv func(string) string) (string, bool) {
	if getenv("TF_LOG_SDK_FRAMEWORK") != "" {
		return "", false
	}
	for _, name := range []string{"TF_LOG", "TF_LOG_PROVIDER", "TF_LOG_SDK"} {
		// TF_LOG=JSON is trace, written as JSON.
		if v := strings.ToUpper(getenv(name)); v == "TRACE" || v == "JSON" {
			return "", false
		}
	}
	return "DEBUG", true
}
