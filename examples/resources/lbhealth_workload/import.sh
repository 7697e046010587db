# A workload is imported by its instance's path; it keeps the mode it has.
terraform import lbhealth_workload.web_b projects/demo-project/zones/us-central1-a/instances/web-b
