"""A run stopped in the middle, as a crash or a kill would stop it: ``train(..., on_step=stop_at(7))``."""


class Interrupted(Exception):
    pass


def stop_at(step_to_fail):
    def on_step(step):
        if step == step_to_fail:
            raise Interrupted
    return on_step
