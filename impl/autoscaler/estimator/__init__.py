"""How many nodes of a group would the pods need (``estimator/``): the binpacking estimator,
its limiter and its pod orderer."""

from schedspec.impl.autoscaler.estimator.binpacking import estimate
from schedspec.impl.autoscaler.estimator.decreasing_pod_orderer import order_pods
from schedspec.impl.autoscaler.estimator.limiter import EstimationLimiter

__all__ = ["EstimationLimiter", "estimate", "order_pods"]
