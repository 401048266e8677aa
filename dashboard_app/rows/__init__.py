"""Table rows made in Python for the pages whose rows grow with the data (issue 26, point 1):
the markup is the templates' as it was, each value escaped as the template escaped it."""
