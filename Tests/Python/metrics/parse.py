"""Reads a Prometheus text exposition from standard input with prometheus-client's own parser (what a scraper's
client library reads) and prints every family as JSON: {name: {"type": ..., "help": ..., "samples": [[name, labels,
value], ...]}}. Exits 1 with the parser's message when the text does not parse."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = sys.stdin.read()
    families = {}
    try:
        for family in text_string_to_metric_families(text):
            if family.name in families:
                raise ValueError(f"the family {family.name} appears twice")
            families[family.name] = {
                "type": family.type,
                "help": family.documentation,
                "samples": [
                    [sample.name, sample.labels, "+Inf" if math.isinf(sample.value) else sample.value] for sample in family.samples
                ],
            }
    except Exception as error:  # the parser raises ValueError and others on malformed text
        print(f"not a valid exposition: {error}", file=sys.stderr)
        sys.exit(1)
    json.dump(families, sys.stdout)


if __name__ == "__main__":
    main()
