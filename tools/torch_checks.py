"""torch_checks.py: whether a model's gradients can be captured and validated, decided over names
alone (no torch here, so the tests run where PyTorch is not installed). capture_torch.py,
torch_host.py and validate_torch.py ask it, each with what it saw on the GPU."""


def grad_problem(trainable, fired=None):
    """One line saying why the model's gradients cannot be measured, or None.

    trainable: names of the parameters that require gradients, in the model's order;
    fired: names whose post-accumulate-grad hook fired in a step (None: no step was run)."""
    if not trainable:
        return "the model has no parameters that require gradients"
    if fired is None:
        return None
    missing = [n for n in trainable if n not in fired]
    if missing:
        return ("no gradient hook fired for %d of %d parameters (e.g. %s): are they used in "
                "forward?" % (len(missing), len(trainable), missing[0]))
    return None
