"""What only the dashboard needs (view models, text, show-code builders, background prefetch).

Never imports Streamlit: ``pages/`` draws, this package decides."""
