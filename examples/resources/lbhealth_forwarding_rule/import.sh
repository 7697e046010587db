# A regional forwarding rule, by its full id:
terraform import lbhealth_forwarding_rule.nlb projects/demo-project/regions/us-central1/forwardingRules/nlb

# A global one:
terraform import lbhealth_forwarding_rule.global projects/demo-project/global/forwardingRules/web-global

# Or {project}/{name}, or the bare name (global first, then the provider's region):
terraform import lbhealth_forwarding_rule.internal internal
