# Instances are zonal: import by the full id.
terraform import lbhealth_instance.web_a projects/demo-project/zones/us-central1-a/instances/web-a
