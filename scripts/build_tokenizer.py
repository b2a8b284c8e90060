"""Write each registered subword vocabulary (mope.store.presets.TOKENIZERS) from TinyShakespeare's
training split and print its sha256 and the tokens the validation split encodes to; a hash that differs
from the registered one must be copied into TOKENIZERS, and every run made with the old file turns stale;
a count that differs is copied into TOKENIZERS too (it is no part of a run's configuration).

    python scripts/build_tokenizer.py            # all of them, into mope/train/vocabularies/
"""
from mope.store.presets import TOKENIZERS
from mope.train import subword


def main() -> None:
    for spec in TOKENIZERS.values():
        payload = subword.build(spec)
        path = subword.tokenizer_path(spec.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(payload)
        status = "matches the registered hash" if subword.sha256(payload) == spec.sha256 else "differs from the registered hash"
        print(f"{path}: sha256 {subword.sha256(payload)} ({status})")
        count = subword.validation_tokens(payload)
        status = "matches the registered count" if count == spec.validation_tokens else "differs from the registered count"
        print(f"{path}: {count:,} tokens in the validation split ({status})")


if __name__ == "__main__":
    main()
