"""Services: the product's operations, given their adapters as arguments."""
