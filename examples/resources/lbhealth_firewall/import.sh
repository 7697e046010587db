# Firewall rules are global: import by the full id, {project}/{name} or the name.
terraform import lbhealth_firewall.allow_health_checks projects/demo-project/global/firewalls/allow-health-checks
