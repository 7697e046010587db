# Legacy checks are global: import by the full id,
terraform import lbhealth_legacy_https_check.secure projects/demo-project/global/httpsHealthChecks/secure-legacy

# or {project}/{name}, or the bare name:
terraform import lbhealth_legacy_https_check.secure secure-legacy
