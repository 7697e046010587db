package api

// ProviderEndpoint is an API the emulator serves, by the attribute of
// hashicorp/google (and google-beta) that points the provider at it and the
// path under the emulator's URL where it is served.
type ProviderEndpoint struct {
	Attribute string
	Path      string
}

// ProviderEndpoints are the APIs the emulator serves: Compute, and beside it
// IAM, Resource Manager, IAP, Certificate Manager, Cloud Storage, Cloud
// KMS, Cloud Run and Serverless VPC Access, as far as load-balancing configurations call them.
var ProviderEndpoints = []ProviderEndpoint{
	{"compute_custom_endpoint", "/compute/v1/"},
	{"iam_custom_endpoint", "/iam/v1/"},
	// Service accounts and their keys, in hashicorp/google 7.x.
	{"iam_beta_custom_endpoint", "/iam/v1/"},
	{"resource_manager_custom_endpoint", "/resourcemanager/v1/"},
	{"iap_custom_endpoint", "/iap/v1/"},
	{"certificate_manager_custom_endpoint", "/certificatemanager/v1/"},
	{"storage_custom_endpoint", "/storage/v1/"},
	{"kms_custom_endpoint", "/kms/v1/"},
	{"cloud_run_v2_custom_endpoint", "/run/v2/"},
	// Cloud Run's v1 (Knative) API, regional: the provider fills in
	// {{location}} as it does in the cloud's regional address.
	{"cloud_run_custom_endpoint", "/run/{{location}}/"},
	// Serverless VPC Access, which Cloud Run's modules create connectors
	// of.
	{"vpc_access_custom_endpoint", "/vpcaccess/v1/"},
}
