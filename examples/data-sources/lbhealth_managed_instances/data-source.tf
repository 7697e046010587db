# The instances of a managed instance group that hashicorp/google made
# against the emulator, and what autohealing is doing to them.
data "lbhealth_managed_instances" "web" {
  instance_group_manager = "projects/demo-project/zones/us-central1-a/instanceGroupManagers/web-mig"
}

# Fails the plan while an instance is in a recreate loop: recreated again
# before it could pass its first check.
check "web_not_looping" {
  assert {
    condition     = data.lbhealth_managed_instances.web.recreate_loop == ""
    error_message = data.lbhealth_managed_instances.web.recreate_loop
  }
}

output "web_instances" {
  value = {
    for i in data.lbhealth_managed_instances.web.instances : i.name => "${i.current_action} ${coalesce(i.health_state, "-")}"
  }
}
