local COUNT_ORDER = {}  -- { state, topic } in the order of their first change
