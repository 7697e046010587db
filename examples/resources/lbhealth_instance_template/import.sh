# Instance templates are global: import by the full id, {project}/{name} or the name.
terraform import lbhealth_instance_template.web projects/demo-project/global/instanceTemplates/web-template
