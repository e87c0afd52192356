# Die Ticketliste (/tickets/).
queue-title = Tickets
queue-views-label = Ansichten der Ticketliste
queue-view-all = Alle
queue-view-mine = Meine
queue-view-groups = Meine Gruppen
queue-view-unassigned = Nicht zugewiesen
queue-view-breaching = SLA bald verletzt
queue-view-my-requests = Meine Anfragen
queue-view-waiting = Warten auf mich
queue-saved-views-label = Gespeicherte Ansichten
queue-remove-view-label = Gespeicherte Ansicht { $name } entfernen
queue-remove-view = Entfernen

# Filter
queue-filter-label = Tickets filtern
queue-search = Suche
queue-search-placeholder = Titel, Text oder Nummer
queue-status = Status
queue-priority = Priorität
queue-any = Alle
queue-tags = Schlagwörter
queue-tags-placeholder = vpn, dringend
queue-assigned = Zuständig
queue-assigned-anyone = Beliebig oder niemand
queue-assigned-me = Ich
queue-assigned-someone = Jemand
queue-assigned-nobody = Niemand
queue-sort = Sortierung
queue-sort-newest = Neueste zuerst
queue-sort-oldest = Älteste zuerst
queue-sort-updated-recently = Zuletzt aktualisiert
queue-sort-updated-least = Am längsten nicht aktualisiert
queue-sort-due-soonest = SLA am frühesten fällig
queue-sort-due-latest = SLA am spätesten fällig
queue-sort-number-highest = Nummer, höchste zuerst
queue-sort-number-lowest = Nummer, niedrigste zuerst
queue-show-closed = Gelöste und geschlossene anzeigen
queue-filter = Filtern

# Gespeicherte Ansichten
queue-save-as = Diese Filter speichern als
queue-save-placeholder = Ein Name für diese Ansicht
queue-save-view = Ansicht speichern

# Die Liste
queue-count = { $n ->
    [one] { $n } Ticket
   *[other] { $n } Tickets
}
queue-note-too-much = Zu viel für eine Wortsuche (höchstens { $chars } Zeichen und { $words } Wörter in einer Zeile);
queue-note-no-words = Kein Ticket enthält alle diese Wörter;
queue-note-contain = diese Tickets enthalten „{ $q }“ im Titel oder in der Beschreibung.
queue-empty = Keine passenden Tickets.
queue-caption-ranked = Tickets, beste Treffer zuerst
queue-caption-newest = Tickets, neueste zuerst
queue-col-select = Auswählen
queue-col-number = Nummer
queue-col-title = Titel
queue-col-status = Status
queue-col-priority = Priorität
queue-col-requester = Anfragende(r)
queue-col-assignee = Zuständig
queue-col-updated = Aktualisiert
queue-col-sla = SLA
queue-select-ticket = { $number } auswählen
queue-unassigned = Nicht zugewiesen
queue-sla-paused = Pausiert

# Ein Makro auf die angehakten Tickets anwenden
queue-bulk-label = Auf die ausgewählten Tickets anwenden
queue-bulk-apply = Makro anwenden
queue-macro-applied = { $changed ->
    [one] Makro auf { $changed } Ticket angewendet.
   *[other] Makro auf { $changed } Tickets angewendet.
}
queue-macro-applied-failed = Makro auf { $changed ->
        [one] { $changed } Ticket
       *[other] { $changed } Tickets
    } angewendet; { $failed ->
        [one] { $failed } Ticket konnte
       *[other] { $failed } Tickets konnten
    } nicht geändert werden (öffnen Sie sie, um den Grund zu sehen).

# Die angehakten Tickets im Hintergrund ändern
queue-bulk-change-label = Die ausgewählten Tickets ändern
queue-bulk-keep = (beibehalten)
queue-bulk-assign-me = Mir
queue-bulk-assign-nobody = Niemandem
queue-bulk-change = Ändern
queue-bulk-started = { $n ->
    [one] { $n } Ticket wird im Hintergrund geändert; die Liste zeigt es, sobald es sich ändert.
   *[other] { $n } Tickets werden im Hintergrund geändert; die Liste zeigt sie, sobald sie sich ändern.
}

# Seiten
queue-pages-label = Seiten
queue-previous-page = Vorherige Seite
queue-page-of = Seite { $page } von { $pages }
queue-next-page = Nächste Seite

# Tastenkürzel („Drücken Sie ? für die Tastenkürzel.“: die Taste steht zwischen den beiden Teilen)
queue-shortcuts-hint-before = Drücken Sie
queue-shortcuts-hint-after = für die Tastenkürzel.
queue-shortcuts-title = Tastenkürzel
queue-shortcut-next-previous = Nächstes / vorheriges Ticket
queue-shortcut-or = oder
queue-key-enter = Eingabe
queue-shortcut-open = Ticket öffnen
queue-shortcut-assign = Ticket mir zuweisen
queue-shortcut-reply = Auf das Ticket antworten
queue-shortcut-search = Suchen
queue-shortcut-help = Diese Liste
queue-shortcuts-close = Schließen
