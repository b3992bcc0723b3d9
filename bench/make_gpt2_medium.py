"""Writes a GPT-2-medium-sized program (~355M parameters, random init) with torch.export.save.

Usage: python make_gpt2_medium.py OUT.pt2
"""

import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel


class LogitsOnly(torch.nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.model = inner

    def forward(self, ids):
        return self.model(input_ids=ids).logits


def main():
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=24, n_embd=1024, n_head=16, use_cache=False)  # gpt2-medium's shape
    model = LogitsOnly(GPT2LMHeadModel(cfg)).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, 16))
    ep = torch.export.export(model, (ids,))
    torch.export.save(ep, sys.argv[1])
    print(f"parameters: {sum(p.numel() for p in model.parameters())}")


if __name__ == "__main__":
    main()
