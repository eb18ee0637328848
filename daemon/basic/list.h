/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Intrusive doubly linked lists: an item embeds LIST_FIELDS(Type, name) and
 * the list is a pointer to its first item. Prepending and removing are O(1)
 * and allocate nothing.
 */

#include <assert.h>
#include <stddef.h>

#define LIST_FIELDS(type, name) type *name##_next, *name##_prev

/* Puts item at the head of the list *head (item must not be on a list). */
#define LIST_PREPEND(name, head, item)                                                                       \
        do {                                                                                                 \
                __typeof__(*(head)) **_head_ = &(head), *_item_ = (item);                                    \
                assert(_item_);                                                                              \
                _item_->name##_prev = NULL;                                                                  \
                _item_->name##_next = *_head_;                                                               \
                if (*_head_)                                                                                 \
                        (*_head_)->name##_prev = _item_;                                                     \
                *_head_ = _item_;                                                                            \
        } while (0)

/* Takes item off the list *head; its own links are cleared. */
#define LIST_REMOVE(name, head, item)                                                                        \
        do {                                                                                                 \
                __typeof__(*(head)) **_head_ = &(head), *_item_ = (item);                                    \
                assert(_item_);                                                                              \
                if (_item_->name##_prev)                                                                     \
                        _item_->name##_prev->name##_next = _item_->name##_next;                              \
                else {                                                                                       \
                        assert(*_head_ == _item_);                                                           \
                        *_head_ = _item_->name##_next;                                                       \
                }                                                                                            \
                if (_item_->name##_next)                                                                     \
                        _item_->name##_next->name##_prev = _item_->name##_prev;                              \
                _item_->name##_next = _item_->name##_prev = NULL;                                            \
        } while (0)

/* Iterates so that the body may remove (and free) i. */
#define LIST_FOREACH_SAFE(name, i, n, head)                                                                  \
        for ((i) = (head); (i) && (((n) = (i)->name##_next), 1); (i) = (n))

#define LIST_FOREACH(name, i, head) for ((i) = (head); (i); (i) = (i)->name##_next)
