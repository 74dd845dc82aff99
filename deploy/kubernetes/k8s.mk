# The lab past one host: a class on Kubernetes (docs/kubernetes.md). Included by the Makefile.
.PHONY: k8s-render k8s-verify

# LAB_TRACE=1 traces these scripts too (their own switch is TRACE=1).
k8s_trace = $(if $(filter 1,$(value LAB_TRACE)),TRACE=1)

##@ For trainers

k8s-render: ## write a class's Kubernetes manifests, a namespace per name in ROSTER=<file>, to labs/k8s/class.yaml (K8S_IMAGE=... needed)
	@$(k8s_trace) bash deploy/kubernetes/render.sh $(call quoted,ROSTER)

k8s-verify: ## after kubectl apply: every lab of ROSTER=<file> ready, its key kept, unreachable from another namespace
	@$(k8s_trace) bash deploy/kubernetes/verify.sh $(call quoted,ROSTER)
