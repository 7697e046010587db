# A zonal group, by its full id:
terraform import lbhealth_endpoint_group.web projects/demo-project/zones/us-central1-a/networkEndpointGroups/web-zonal

# A regional one:
terraform import lbhealth_endpoint_group.api projects/demo-project/regions/us-central1/networkEndpointGroups/api-vms

# Or {project}/{name}, or the bare name, for a group of the provider's region:
terraform import lbhealth_endpoint_group.api api-vms
