# The lab past one host: a class on Kubernetes (docs/kubernetes.md). Included by the Makefile.
.PHONY: k8s-render

k8s-render: ## print a class's Kubernetes manifests, a namespace per name in ROSTER=<file>, for kubectl apply -f -
	@bash deploy/kubernetes/render.sh "$(ROSTER)"
