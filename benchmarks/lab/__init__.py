"""The studied variants, plugged into the package through its public protocols.

The benchmarks' lab: what the package does not ship, but its figures were measured with.
Each variant is a value of one of the package's public protocols, passed where a user
passes one (``objective=``, ``selection=``):

- :mod:`lab.objectives`: ``ClusterNegatives`` (``objective="cluster-negatives"`` of the
  scripts), NT-Xent in which the anchor's pseudo-cluster is no negative;
- :mod:`lab.criteria`: ``SilhouetteCriterion`` (``selection="silhouette"`` of the
  scripts), each epoch's silhouette in its own space;
- :mod:`lab.views`: the weights of any number of views, dense or sparse;
- :mod:`lab.internals`: the one place the scripts reach the embedders' private pieces
  they measure (windows, the engine, the LSA space, ...).

The scripts run from ``benchmarks/`` and import these as ``lab.<module>``.
"""
