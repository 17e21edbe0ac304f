"""The shrink passes, each following `numfuzz.reduce.shrinker.ShrinkPass`; `numfuzz.reduce.schedule` orders them."""
