"""The page ``arena view`` serves beside the leaderboard's viewer: the bot output panel and the
think-time chart (``view.js``, ``view.css``). Static files only; a package so they are installed."""
