# Legacy checks are global: import by the full id,
terraform import lbhealth_legacy_http_check.web projects/demo-project/global/httpHealthChecks/web-legacy

# or {project}/{name}, or the bare name:
terraform import lbhealth_legacy_http_check.web web-legacy
