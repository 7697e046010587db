# By its full id:
terraform import lbhealth_aggregation_policy.strict projects/demo-project/regions/us-central1/healthAggregationPolicies/strict

# Or {project}/{name}, or the bare name (in the provider's region):
terraform import lbhealth_aggregation_policy.default default-policy
