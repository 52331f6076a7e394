"""torch_user_model.py: a model of the user's own for tools/validate_torch.py (and
tools/capture_torch.py): a plain-PyTorch transformer encoder classifier, no torchvision or
transformers. Run it as

    python3 tools/validate_torch.py --out /tmp/tv --models examples.torch_user_model:encoder:32

from the repository root (validate_torch.py puts tools/ on the path; a module on PYTHONPATH or in
the current directory works the same way). The builder takes (batch, device) and returns (model on
the device, inputs, loss_fn[, optimizer]), loss_fn(model, inputs) giving the loss. Random weights
and inputs, nothing downloaded."""
import torch


class EncoderClassifier(torch.nn.Module):
    """Token embedding, learned positions, torch.nn.TransformerEncoder (pre-norm, GELU) and a
    linear head on the mean over the sequence."""

    def __init__(self, vocab=16384, seq=256, width=512, heads=8, layers=6, classes=1000):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Parameter(torch.zeros(1, seq, width))
        layer = torch.nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                                 activation="gelu", batch_first=True,
                                                 norm_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(width, classes)

    def forward(self, ids):
        return self.head(self.encoder(self.embed(ids) + self.pos).mean(dim=1))


def encoder(batch, device, seq=256):
    torch.manual_seed(0)
    model = EncoderClassifier(seq=seq).to(device)
    ids = torch.randint(0, 16384, (batch, seq), device=device)
    labels = torch.randint(0, 1000, (batch,), device=device)
    crit = torch.nn.CrossEntropyLoss()
    return model, (ids, labels), (lambda m, inp: crit(m(inp[0]), inp[1]))
